import { Injectable } from '@nestjs/common';
import { ANALYTICS_MAX_DAYS, AnalyticsDay, AnalyticsQueryDto, AnalyticsResponse, INVALID_PARAMETERS } from '@svc/contracts';
import { ApiError } from '@svc/platform';
import { AnalyticsRepository, DayCount } from './analytics.repository';

const DAY_MS = 86_400_000;

/** A real calendar date `YYYY-MM-DD` as UTC midnight in ms, or undefined. */
function dateMs(value: string): number | undefined {
  const ms = Date.parse(`${value}T00:00:00Z`);
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value ? undefined : ms;
}

/** The UTC days of the range, both ends included; 400 `invalid_parameter` for a bad or too long range. */
export function rangeDays(from: string, to: string): string[] {
  const start = dateMs(from);
  const end = dateMs(to);
  const problems = [
    ...(start === undefined ? [{ path: 'from', message: 'from must be a calendar date such as 2026-11-01' }] : []),
    ...(end === undefined ? [{ path: 'to', message: 'to must be a calendar date such as 2026-11-30' }] : []),
  ];
  if (start !== undefined && end !== undefined) {
    if (end < start) problems.push({ path: 'to', message: 'to must not be before from' });
    else if ((end - start) / DAY_MS + 1 > ANALYTICS_MAX_DAYS)
      problems.push({ path: 'to', message: `the range is at most ${ANALYTICS_MAX_DAYS} days` });
  }
  if (problems.length > 0) throw new ApiError('invalid_parameter', INVALID_PARAMETERS, problems);
  const days: string[] = [];
  for (let ms = start as number; ms <= (end as number); ms += DAY_MS) days.push(new Date(ms).toISOString().slice(0, 10));
  return days;
}

/** A day with nothing counted. */
export const emptyDay = (date: string): AnalyticsDay => ({
  date,
  conversations: { web: 0, whatsapp: 0 },
  messages_received: 0,
  messages_sent: { assistant: 0, team: 0 },
  closed_by_assistant: 0,
  handovers: { customer_asked: 0, assistant_unsure: 0, nobody_answered: 0 },
  median_first_team_reply_seconds: null,
  confirmations: { email: 0, phone: 0 },
  consents: { granted: {}, withdrawn: {} },
  bookings: { requested: 0, confirmed: 0 },
});

/** The contract's figures per day over a range, from the chat's own records (see docs/chat.md, "Analytics"). */
@Injectable()
export class AnalyticsService {
  constructor(private readonly analytics: AnalyticsRepository) {}

  async figures(accountId: string, query: AnalyticsQueryDto): Promise<AnalyticsResponse> {
    const days = new Map(rangeDays(query.from, query.to).map((date) => [date, emptyDay(date)]));
    const { from, to } = query;
    const [conversations, messages, closed, handovers, medians, activity, bookings, topCited, topUnanswered] = await Promise.all([
      this.analytics.conversationsByChannel(accountId, from, to),
      this.analytics.messagesByAuthor(accountId, from, to),
      this.analytics.closedByAssistant(accountId, from, to),
      this.analytics.handoversByReason(accountId, from, to),
      this.analytics.medianFirstTeamReply(accountId, from, to),
      this.analytics.contactActivity(accountId, from, to),
      this.analytics.bookings(accountId, from, to),
      this.analytics.topCitedPieces(accountId, from, to),
      this.analytics.topUnansweredQuestions(accountId, from, to),
    ]);
    const each = (rows: DayCount[], add: (day: AnalyticsDay, row: DayCount) => void) => {
      for (const row of rows) {
        const day = days.get(row.day);
        if (day) add(day, row);
      }
    };
    each(conversations, (day, { key, n }) => {
      if (key === 'web' || key === 'whatsapp') day.conversations[key] += n;
    });
    each(messages, (day, { key, n }) => {
      if (key === 'customer') day.messages_received += n;
      else if (key === 'assistant' || key === 'team') day.messages_sent[key] += n;
    });
    each(closed, (day, { n }) => (day.closed_by_assistant += n));
    each(handovers, (day, { key, n }) => {
      if (key === 'customer_asked' || key === 'assistant_unsure' || key === 'nobody_answered') day.handovers[key] += n;
    });
    for (const { day, seconds } of medians) {
      const figures = days.get(day);
      if (figures) figures.median_first_team_reply_seconds = Math.round(seconds * 1000) / 1000;
    }
    each(activity, (day, { key, n }) => {
      const [kind, detail] = key.split(':') as [string, string];
      if (kind === 'contact.confirmed' && (detail === 'email' || detail === 'phone')) day.confirmations[detail] += n;
      else if (kind === 'consent.granted') day.consents.granted[detail] = (day.consents.granted[detail] ?? 0) + n;
      else if (kind === 'consent.withdrawn') day.consents.withdrawn[detail] = (day.consents.withdrawn[detail] ?? 0) + n;
    });
    each(bookings, (day, { key, n }) => {
      if (key === 'requested' || key === 'confirmed') day.bookings[key] += n;
    });
    return { from, to, days: [...days.values()], top_cited_pieces: topCited, top_unanswered_questions: topUnanswered };
  }
}
