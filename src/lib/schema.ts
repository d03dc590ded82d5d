import { Type, type TSchema } from '@sinclair/typebox';

/** Small TypeBox fragments every module's schemas share. */

export const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** Ids are int64 in the API; JavaScript handles them exactly up to 2^53 - 1, so larger ones are refused. */
export const Id = (description: string) => Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description });
