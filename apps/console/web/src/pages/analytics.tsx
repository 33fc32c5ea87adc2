import type { AnalyticsDay, AnalyticsResponse } from '@svc/contracts';
import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { api, query } from '../api';
import { ErrorNote, Field, Page, SubmitButton, Table, useFormAction } from '../ui';

const day = (offset: number): string => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const COLORS = ['#2563eb', '#16a34a', '#dc2626', '#9333ea', '#ea580c'];

interface Series {
  label: string;
  value: (d: AnalyticsDay) => number;
}

/** A line chart of some figures per day (uPlot, canvas); the table below it carries the same numbers for screen readers. */
function Chart({ title, days, series }: { title: string; days: AnalyticsDay[]; series: Series[] }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!box.current) return;
    const xs = days.map((d) => Date.parse(`${d.date}T00:00:00Z`) / 1000);
    const plot = new uPlot(
      {
        width: Math.min(720, box.current.clientWidth || 720),
        height: 220,
        scales: { x: { time: true } },
        series: [{}, ...series.map((s, i) => ({ label: s.label, stroke: COLORS[i % COLORS.length], width: 2 }))],
        axes: [{}, { values: (_u: uPlot, ticks: number[]) => ticks.map((t) => (Number.isInteger(t) ? String(t) : '')) }],
      },
      [xs, ...series.map((s) => days.map(s.value))],
      box.current,
    );
    return () => plot.destroy();
  }, [days, series]);
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <div ref={box} role="img" aria-label={`${title}: chart; the figures are in the table below`} />
    </figure>
  );
}

const sum = (days: AnalyticsDay[], value: (d: AnalyticsDay) => number): number => days.reduce((total, d) => total + value(d), 0);
const purposes = (days: AnalyticsDay[], key: 'granted' | 'withdrawn'): string[] =>
  [...new Set(days.flatMap((d) => Object.keys(d.consents[key])))].sort();

const CONVERSATIONS: Series[] = [
  { label: 'Web conversations', value: (d) => d.conversations.web },
  { label: 'WhatsApp conversations', value: (d) => d.conversations.whatsapp },
  { label: 'Closed by the assistant', value: (d) => d.closed_by_assistant },
];
const MESSAGES: Series[] = [
  { label: 'Received', value: (d) => d.messages_received },
  { label: 'Sent by the assistant', value: (d) => d.messages_sent.assistant },
  { label: 'Sent by the team', value: (d) => d.messages_sent.team },
];
const HANDOVERS: Series[] = [
  { label: 'Customer asked', value: (d) => d.handovers.customer_asked },
  { label: 'Assistant unsure', value: (d) => d.handovers.assistant_unsure },
  { label: 'Nobody answered', value: (d) => d.handovers.nobody_answered },
];

function Figures({ data }: { data: AnalyticsResponse }) {
  const granted = purposes(data.days, 'granted');
  const withdrawn = purposes(data.days, 'withdrawn');
  const rows: Series[] = [
    ...CONVERSATIONS,
    ...MESSAGES.map((s) => ({ ...s, label: `Messages: ${s.label.toLowerCase()}` })),
    ...HANDOVERS.map((s) => ({ ...s, label: `Hand-overs: ${s.label.toLowerCase()}` })),
    { label: 'Email confirmations', value: (d) => d.confirmations.email },
    { label: 'Phone confirmations', value: (d) => d.confirmations.phone },
    ...granted.map((p) => ({ label: `Consents granted: ${p}`, value: (d: AnalyticsDay) => d.consents.granted[p] ?? 0 })),
    ...withdrawn.map((p) => ({ label: `Consents withdrawn: ${p}`, value: (d: AnalyticsDay) => d.consents.withdrawn[p] ?? 0 })),
    { label: 'Bookings requested', value: (d) => d.bookings.requested },
    { label: 'Bookings confirmed', value: (d) => d.bookings.confirmed },
  ];
  return (
    <>
      <div className="charts">
        <Chart title="Conversations per day" days={data.days} series={CONVERSATIONS} />
        <Chart title="Messages per day" days={data.days} series={MESSAGES} />
        <Chart title="Hand-overs per day" days={data.days} series={HANDOVERS} />
      </div>
      <div className="scroll">
        <table className="figures">
          <caption>
            Figures from {data.from} to {data.to} (UTC days)
          </caption>
          <thead>
            <tr>
              <th scope="col">Figure</th>
              <th scope="col">Total</th>
              {data.days.map((d) => (
                <th scope="col" key={d.date}>
                  {d.date.slice(5)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.label}>
                <th scope="row">{row.label}</th>
                <td>{sum(data.days, row.value)}</td>
                {data.days.map((d) => (
                  <td key={d.date}>{row.value(d)}</td>
                ))}
              </tr>
            ))}
            <tr>
              <th scope="row">Median time to the first team reply (s)</th>
              <td>—</td>
              {data.days.map((d) => (
                <td key={d.date}>{d.median_first_team_reply_seconds ?? '—'}</td>
              ))}
            </tr>
          </tbody>
        </table>
      </div>
      <div className="columns">
        <Table
          caption="Most cited pieces"
          rows={data.top_cited_pieces}
          rowKey={(p) => p.external_ref}
          columns={[
            [
              'Piece',
              (p) => (
                <>
                  {p.heading} <span className="note">({p.external_ref})</span>
                </>
              ),
            ],
            ['Citations', (p) => p.count],
          ]}
        />
        <Table
          caption="Most frequent unanswered questions"
          rows={data.top_unanswered_questions}
          rowKey={(q) => q.question}
          columns={[
            ['Question', (q) => q.question],
            ['Times', (q) => q.count],
          ]}
        />
      </div>
    </>
  );
}

/** The contract's figures over a date range: charts and tables. */
export default function Analytics() {
  const [from, setFrom] = useState(day(-6));
  const [to, setTo] = useState(day(0));
  const [data, setData] = useState<AnalyticsResponse | undefined>(undefined);
  const show = useFormAction(async () => {
    setData(await api<AnalyticsResponse>('GET', `/analytics${query({ from, to })}`));
  });
  useEffect(() => {
    void show.run();
  }, []);
  return (
    <Page title="Analytics">
      <form onSubmit={show.onSubmit} className="row">
        <Field label="From" type="date" value={from} onChange={setFrom} required />
        <Field label="To" type="date" value={to} onChange={setTo} required />
        <SubmitButton pending={show.pending}>Show</SubmitButton>
      </form>
      <ErrorNote error={show.error} />
      {data && <Figures data={data} />}
    </Page>
  );
}
