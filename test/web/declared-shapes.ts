import ts from 'typescript';

/** A declared type reduced to what an OpenAPI schema can be compared with. */
export type Shape = { nullable: boolean } & (
  | { kind: 'any' }
  | { kind: 'string' | 'number' | 'boolean' }
  | { kind: 'enum'; values: string[] }
  | { kind: 'array'; items: Shape }
  | { kind: 'record' }
  | { kind: 'object'; fields: Record<string, { shape: Shape; optional: boolean }> }
  | { kind: 'union'; members: Shape[] }
);

/**
 * The exported types of a TypeScript file, each as a Shape, read with the compiler so that `extends`,
 * Pick, Partial and intersections count as the front ends see them.
 */
export function declaredShapes(file: string): Map<string, Shape> {
  const program = ts.createProgram([file], { strict: true, noEmit: true, skipLibCheck: true, types: [] });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
  const shapes = new Map<string, Shape>();
  for (const symbol of checker.getExportsOfModule(module))
    shapes.set(symbol.name, shapeOf(checker, checker.getDeclaredTypeOfSymbol(symbol), 0));
  return shapes;
}

function shapeOf(checker: ts.TypeChecker, type: ts.Type, depth: number): Shape {
  if (depth > 8) throw new Error(`${checker.typeToString(type)} nests too deep`);
  const parts = type.isUnion() ? type.types : [type];
  const nullable = parts.some((t) => t.flags & ts.TypeFlags.Null);
  const rest = parts.filter((t) => !(t.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined)));
  if (
    rest.length === 0 ||
    rest.some((t) => t.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown | ts.TypeFlags.TypeParameter))
  )
    return { kind: 'any', nullable };
  if (rest.every((t) => t.flags & ts.TypeFlags.BooleanLike)) return { kind: 'boolean', nullable };
  if (rest.every((t) => t.isStringLiteral())) return { kind: 'enum', values: rest.map((t) => t.value), nullable };
  if (rest.length > 1) return { kind: 'union', members: rest.map((t) => shapeOf(checker, t, depth + 1)), nullable };
  const [only] = rest;
  if (only.flags & ts.TypeFlags.StringLike) return { kind: 'string', nullable };
  if (only.flags & ts.TypeFlags.NumberLike) return { kind: 'number', nullable };
  if (checker.isArrayType(only))
    return {
      kind: 'array',
      items: shapeOf(checker, checker.getTypeArguments(only as ts.TypeReference)[0], depth + 1),
      nullable,
    };
  const properties = checker.getPropertiesOfType(only);
  if (properties.length === 0) return { kind: 'record', nullable };
  const fields: Record<string, { shape: Shape; optional: boolean }> = {};
  for (const property of properties)
    fields[property.name] = {
      shape: shapeOf(checker, checker.getTypeOfSymbol(property), depth + 1),
      optional: (property.flags & ts.SymbolFlags.Optional) !== 0,
    };
  return { kind: 'object', fields, nullable };
}
