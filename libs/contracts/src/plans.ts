/** Account plans. Only `scale` may use the API, webhooks and the MCP server. */
export const PLANS = ['starter', 'growth', 'scale'] as const;
export type Plan = (typeof PLANS)[number];
export const API_PLAN: Plan = 'scale';

export function isPlan(value: string): value is Plan {
  return (PLANS as readonly string[]).includes(value);
}
