import { call, money, panel } from './api.js';
import type { Dashboard, DashboardDay } from '../../shared/api-types.js';
import { h, replaceContent, table } from './ui.js';

const RANGES = [7, 30, 90] as const;
/** The API's default range, so that the first answer (no from/to) is the range shown. */
let rangeDays: number = 30;
/** The gateway's today (its clock, not the browser's), learnt from the first answer: the API's default range ends there. */
let today: string | undefined;

const isoDay = (date: Date) => date.toISOString().slice(0, 10);
const percent = (rate: number | null) => (rate === null ? '—' : `${(rate * 100).toFixed(1)} %`);

/** Every UTC day from..to, so that days without payments show as zero, not as a gap. */
function daysOf(from: string, to: string): string[] {
  const days: string[] = [];
  for (let d = new Date(`${from}T00:00:00Z`); isoDay(d) <= to; d.setUTCDate(d.getUTCDate() + 1)) days.push(isoDay(d));
  return days;
}

/**
 * Count and approved volume per day (a chart per currency), approval rate and every failure's reason of
 * the current mode (the mode switch chooses test or live; the API reports one mode at a time). The charts
 * come from uPlot, loaded only here; each has its numbers as a table under "Show the numbers" for those
 * who cannot see it.
 */
export async function renderDashboard(root: HTMLElement): Promise<void> {
  const from = today && isoDay(new Date(Date.parse(`${today}T00:00:00Z`) - (rangeDays - 1) * 86_400_000));
  const [report, { default: uPlot }] = await Promise.all([
    // The first answer is the API's default range (30 days to its today), then the range chosen.
    call<Dashboard>('GET', `/reports/dashboard${today ? `?from=${from}&to=${today}` : ''}`),
    import('uplot'),
    import('uplot/dist/uPlot.min.css'),
  ]);
  today = report.to;
  const days = daysOf(report.from, report.to);
  const currencies = [...new Set(report.days.map((d) => d.currency))].sort();
  const sum = (day: string, pick: (d: DashboardDay) => number, currency?: string) =>
    report.days
      .filter((d) => d.day === day && (currency === undefined || d.currency === currency))
      .reduce((total, d) => total + pick(d), 0);
  const counts = days.map((day) => sum(day, (d) => d.count));
  const volumes = currencies.map((c) => days.map((day) => sum(day, (d) => d.volume, c)));
  const total = counts.reduce((a, b) => a + b, 0);
  const { approval } = report;
  const mode = panel.mode === 'test' ? 'test' : 'live';

  const width = Math.max(280, Math.min(960, root.clientWidth - 32));
  const x = days.map((day) => Date.parse(`${day}T00:00:00Z`) / 1000);
  const chart = (label: string, series: Array<{ label: string; values: number[]; stroke: string }>) => {
    const area = h('div', { class: 'chart', role: 'img', 'aria-label': label });
    new uPlot(
      {
        width,
        height: 220,
        tzDate: (ts: number) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.stroke, width: 2, points: { show: true } }))],
        axes: [{}, {}],
      },
      [x, ...series.map((s) => s.values)],
      area,
    );
    return area;
  };
  const busiest = days[counts.indexOf(Math.max(...counts))];

  const rangeChooser = h(
    'fieldset',
    { class: 'range' },
    h('legend', {}, 'Date range'),
    ...RANGES.map((n) => {
      const radio = h('input', { type: 'radio', name: 'range', id: `range-${n}`, value: String(n) });
      radio.checked = n === rangeDays;
      radio.addEventListener('change', () => {
        rangeDays = n;
        void renderDashboard(root).then(() => document.getElementById(`range-${n}`)?.focus());
      });
      return h('span', {}, radio, h('label', { for: `range-${n}` }, `Last ${n} days`));
    }),
  );

  const figure = (title: string, chartArea: HTMLElement, numbers: HTMLElement) =>
    h(
      'figure',
      { class: 'figure' },
      h('figcaption', {}, h('h2', {}, title)),
      chartArea,
      h('details', {}, h('summary', {}, `Show the numbers: ${title.toLowerCase()}`), numbers),
    );

  replaceContent(
    root,
    h('h1', {}, 'Dashboard'),
    h('p', {}, `${mode === 'test' ? 'Test' : 'Live'} payments, ${report.from} to ${report.to} (UTC days).`),
    rangeChooser,
    h(
      'dl',
      { class: 'facts', id: 'dashboard-totals' },
      h('dt', {}, 'Payments'),
      h('dd', { 'data-figure': 'count' }, String(total)),
      h('dt', {}, 'Approved'),
      h('dd', { 'data-figure': 'approved' }, String(approval.approved)),
      h('dt', {}, 'Declined'),
      h('dd', { 'data-figure': 'declined' }, String(approval.declined)),
      h('dt', {}, 'Approval rate'),
      h('dd', { 'data-figure': 'rate' }, percent(approval.rate)),
    ),
    figure(
      'Payments per day',
      chart(
        `Payments per day: ${total} in ${days.length} days${total ? `, most on ${busiest} (${Math.max(...counts)})` : ''}.`,
        [{ label: 'Payments', values: counts, stroke: '#1f5fbf' }],
      ),
      table(
        'Payments per day',
        ['Day', 'Payments'],
        days.flatMap((day, i) => (counts[i] ? [[day, String(counts[i])]] : [])),
      ),
    ),
    figure(
      'Approved volume per day',
      // One chart per currency, each on its own axis: euros and rupees are not one scale.
      currencies.length
        ? h(
            'div',
            { class: 'volume-charts' },
            ...currencies.map((c, i) => {
              const values = volumes[i];
              const top = Math.max(...values);
              return h(
                'section',
                { class: 'currency-chart', 'aria-label': `Approved volume in ${c}` },
                h('h3', {}, c),
                chart(
                  `Approved volume per day in ${c}: ${money(
                    values.reduce((a, b) => a + b, 0),
                    c,
                  )} in all${top ? `, most on ${days[values.indexOf(top)]} (${money(top, c)})` : ''}.`,
                  [{ label: c, values, stroke: '#1a7f37' }],
                ),
              );
            }),
          )
        : h('p', {}, 'No approved payment in this range.'),
      table(
        'Approved volume per day and currency',
        ['Day', 'Currency', 'Volume'],
        report.days.filter((d) => d.volume).map((d) => [d.day, d.currency, money(d.volume, d.currency)]),
      ),
    ),
    figure(
      'Top decline reasons',
      h(
        'div',
        {
          class: 'declines',
          role: 'img',
          'aria-label': report.topDeclineReasons.length
            ? `Top decline reasons: ${report.topDeclineReasons.map((r) => `${r.declineReason ?? r.declineCode} ${r.count}`).join(', ')}.`
            : 'No declined payment in this range.',
        },
        ...report.topDeclineReasons.map((r) =>
          h(
            'div',
            { class: 'decline-row' },
            h('span', {}, r.declineReason ?? r.declineCode),
            barOf(r.count / report.topDeclineReasons[0].count),
            h('span', {}, String(r.count)),
          ),
        ),
      ),
      table(
        'Top decline reasons, most frequent first',
        ['Code', 'Reason', 'Payments'],
        report.topDeclineReasons.map((r) => [r.declineCode, r.declineReason ?? '—', String(r.count)]),
      ),
    ),
  );
}

/** A bar as wide as its share: a CSSOM width, as the panel's CSP refuses style attributes. */
function barOf(share: number): HTMLElement {
  const bar = h('span', { class: 'decline-bar' });
  bar.style.width = `${Math.round(share * 100)}%`;
  return h('span', { class: 'decline-track' }, bar);
}
