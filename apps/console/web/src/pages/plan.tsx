import { useSession } from '../session';
import { Page, Table } from '../ui';

const PLANS = [
  { plan: 'starter', label: 'Starter', features: 'The chat, the inbox, bookings, analytics.' },
  { plan: 'growth', label: 'Growth', features: 'Everything in Starter, for bigger teams.' },
  { plan: 'scale', label: 'Scale', features: 'Everything in Growth, plus the REST API, webhooks and the MCP server.' },
] as const;

/** The account's plan; the API, webhooks and MCP need Scale. */
export default function Plan() {
  const { account } = useSession();
  return (
    <Page title="Plan">
      <p>
        This account is on <strong>{PLANS.find((p) => p.plan === account.plan)?.label ?? account.plan}</strong>.
        {account.plan !== 'scale' && ' The REST API, webhooks and the MCP server need the Scale plan: ask your operator to change it.'}
      </p>
      <Table
        caption="Plans"
        rows={PLANS}
        rowKey={(p) => p.plan}
        current={(p) => p.plan === account.plan}
        columns={[
          ['Plan', (p) => p.label],
          ['Includes', (p) => p.features],
        ]}
      />
    </Page>
  );
}
