import { readFileSync } from 'node:fs';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { useGateway } from '../helpers/gateway.js';

/**
 * The names on GET /metrics follow Prometheus' conventions, so stock dashboards work: the process and
 * Node.js metrics under their standard names, the gateway's own under its prefix in base units; and the
 * sample Grafana dashboard (docs/grafana-dashboard.json) queries only metrics the gateway exposes.
 */
const TOKEN = 'metric-names-token-0123456789abcdefghij';
const OWN_PREFIX = 'svc_';

/** Every metric family the scrape declares (`# TYPE name type`), with its type. */
function families(text: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (match) found.set(match[1], match[2]);
  }
  return found;
}

/** The series names a family of this type answers under (a histogram's _bucket, _sum and _count). */
function seriesNames(name: string, type: string): string[] {
  if (type === 'histogram') return [`${name}_bucket`, `${name}_sum`, `${name}_count`];
  if (type === 'summary') return [name, `${name}_sum`, `${name}_count`];
  return [name];
}

const PROMQL_WORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'offset', 'bool']);
const PROMQL_WORDS_AND_OPERATORS = new Set([...PROMQL_WORDS, 'and', 'or', 'unless', 'inf', 'nan']);

/**
 * The metric names a PromQL expression selects: what is left once strings, label matchers, ranges and
 * grouping lists are taken out, that is neither a function (followed by a parenthesis), a keyword nor
 * a number (or a duration).
 */
function metricNamesIn(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\boffset\s+\S+/g, ' ')
    .replace(/\b\d[\w.]*/g, ' ')
    .replace(new RegExp(`\\b(${[...PROMQL_WORDS].join('|')})\\s*\\([^)]*\\)`, 'g'), ' ');
  const names: string[] = [];
  for (const match of bare.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const after = bare.slice(match.index + match[0].length).trimStart();
    if (after.startsWith('(')) continue;
    if (PROMQL_WORDS_AND_OPERATORS.has(match[0].toLowerCase())) continue;
    names.push(match[0]);
  }
  return names;
}

/** Every `expr` in the dashboard, at any depth (panels, rows, targets). */
function expressions(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(expressions);
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === 'expr' && typeof value === 'string' ? [value] : expressions(value),
  );
}

describe('metric names on GET /metrics', () => {
  const gw = useGateway({ env: { METRICS_TOKEN: TOKEN } });
  let exposed: Map<string, string>;
  beforeAll(async () => {
    await gw.call('GET', '/healthz');
    const res = await gw.call('GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    exposed = families(res.text);
  });

  it('exposes the process and Node.js metrics under their standard names, unprefixed', () => {
    const standard = [
      'process_cpu_seconds_total',
      'process_cpu_user_seconds_total',
      'process_start_time_seconds',
      'process_resident_memory_bytes',
      'process_open_fds',
      'nodejs_eventloop_lag_seconds',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_heap_size_used_bytes',
      'nodejs_heap_size_total_bytes',
      'nodejs_external_memory_bytes',
      'nodejs_active_handles',
      'nodejs_version_info',
      'nodejs_gc_duration_seconds',
    ];
    for (const name of standard) expect(exposed.has(name), name).toBe(true);
    expect([...exposed.keys()].filter((name) => name.startsWith(`${OWN_PREFIX}process_`))).toEqual([]);
    expect([...exposed.keys()].filter((name) => name.startsWith(`${OWN_PREFIX}nodejs_`))).toEqual([]);
  });

  it("prefixes every metric of the gateway's own, in base units, counters ending in _total", async () => {
    const defaults = new Registry();
    collectDefaultMetrics({ register: defaults });
    const standard = new Set((await defaults.getMetricsAsJSON()).map((metric) => metric.name));
    const own = [...exposed].filter(([name]) => !standard.has(name));
    expect(own.length).toBeGreaterThan(5);
    for (const [name, type] of own) {
      expect(name.startsWith(OWN_PREFIX), `${name} lacks the ${OWN_PREFIX} prefix`).toBe(true);
      expect(name, 'snake case').toMatch(/^[a-z][a-z0-9_]*$/);
      if (type === 'counter') expect(name, `counter ${name}`).toMatch(/_total$/);
      else expect(name, `${type} ${name} is no counter`).not.toMatch(/_total$/);
      if (type === 'histogram' || type === 'summary') expect(name, `${type} ${name}`).toMatch(/_(seconds|bytes)$/);
      expect(name, `${name} in a base unit`).not.toMatch(
        /_(milliseconds|millis|ms|microseconds|us|minutes|hours|kilobytes|kb|megabytes|mb)(_|$)/,
      );
    }
  });

  it('the sample Grafana dashboard queries only metrics the gateway exposes', () => {
    const dashboard: unknown = JSON.parse(readFileSync('docs/grafana-dashboard.json', 'utf8'));
    const queries = expressions(dashboard);
    expect(queries.length).toBeGreaterThan(10);
    const series = new Set([...exposed].flatMap(([name, type]) => seriesNames(name, type)));
    const named = queries.flatMap(metricNamesIn);
    expect(named.length).toBeGreaterThanOrEqual(queries.length);
    expect(named.filter((name) => !series.has(name))).toEqual([]);
    // Both kinds are on it: the gateway's own and the stock Node.js ones.
    expect(named.some((name) => name.startsWith(OWN_PREFIX))).toBe(true);
    expect(named).toContain('process_cpu_seconds_total');
  });

  it('reads the metric names out of PromQL', () => {
    expect(
      metricNamesIn(
        'histogram_quantile(0.95, sum by (le, route) (rate(svc_x_seconds_bucket{status=~"5..",a="b(c)"}[$__rate_interval])))',
      ),
    ).toEqual(['svc_x_seconds_bucket']);
    expect(metricNamesIn('sum(rate(a_total[5m])) / on (instance) group_left b and c offset 5m')).toEqual([
      'a_total',
      'b',
      'c',
    ]);
  });
});
