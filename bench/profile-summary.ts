import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`) by self time: the top functions, and the
 * same time grouped by where the code lives (a package, the gateway's own code, Node internals,
 * GC, idle). Usage: node dist/bench/profile-summary.js <file.cpuprofile> [top]
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  totalMs: number;
  busyMs: number;
  functions: Array<{ name: string; where: string; ms: number }>;
  groups: Array<{ group: string; ms: number }>;
}

function groupOf(frame: ProfileNode['callFrame']): string {
  const { functionName, url } = frame;
  if (functionName === '(idle)') return '(idle)';
  if (functionName === '(garbage collector)') return '(garbage collector)';
  if (functionName === '(program)') return '(program: native, not attributed)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  if (/\/dist\/src\//.test(url)) return 'gateway code (dist/src)';
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  if (!url) return '(V8/native builtins)';
  return url;
}

function shortWhere(url: string, line: number): string {
  const trimmed = url
    .replace(/^file:\/\//, '')
    .replace(/^.*node_modules\//, '')
    .replace(/^.*\/dist\//, 'dist/');
  return trimmed ? `${trimmed}:${line + 1}` : '';
}

export function summariseProfile(file: string, top = 25): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

  const functions = new Map<string, { name: string; where: string; ms: number }>();
  const groups = new Map<string, number>();
  let totalMs = 0;
  let idleMs = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)!.callFrame;
    const ms = us / 1000;
    totalMs += ms;
    if (frame.functionName === '(idle)') idleMs += ms;
    const group = groupOf(frame);
    groups.set(group, (groups.get(group) ?? 0) + ms);
    const where = shortWhere(frame.url, frame.lineNumber);
    const key = `${frame.functionName}@${where}`;
    const entry = functions.get(key) ?? { name: frame.functionName || '(anonymous)', where, ms: 0 };
    entry.ms += ms;
    functions.set(key, entry);
  }
  return {
    totalMs,
    busyMs: totalMs - idleMs,
    functions: [...functions.values()].sort((a, b) => b.ms - a.ms).slice(0, top),
    groups: [...groups.entries()].map(([group, ms]) => ({ group, ms })).sort((a, b) => b.ms - a.ms),
  };
}

export function formatSummary(summary: ProfileSummary): string {
  const pct = (ms: number) => `${((100 * ms) / summary.totalMs).toFixed(1).padStart(5)}%`;
  const lines = [
    `profile: ${(summary.totalMs / 1000).toFixed(1)} s sampled, ${pct(summary.busyMs).trim()} busy`,
    '',
    'self time by where the code lives:',
  ];
  for (const g of summary.groups.slice(0, 20)) lines.push(`  ${pct(g.ms)}  ${g.group}`);
  lines.push('', 'top functions by self time:');
  for (const f of summary.functions) lines.push(`  ${pct(f.ms)}  ${f.name}  ${f.where}`);
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: node dist/bench/profile-summary.js <file.cpuprofile> [top]\n');
    process.exit(2);
  }
  process.stdout.write(`${formatSummary(summariseProfile(file, Number(top ?? 25)))}\n`);
}
