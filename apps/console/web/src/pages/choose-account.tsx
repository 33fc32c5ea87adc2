import { api } from '../api';
import { SessionInfo } from '../session';
import { ErrorNote, Page, useAction } from '../ui';

/** After sign-in (or from "Switch account"): the accounts the person is a member of; the session acts in the one chosen. */
export default function ChooseAccount({
  session,
  onChosen,
  onSignOut,
}: {
  session: SessionInfo;
  onChosen: (session: SessionInfo) => void;
  onSignOut: () => void;
}) {
  const choose = useAction(async (accountId: string) => {
    await api('POST', '/session/account', { account_id: accountId });
    onChosen(await api<SessionInfo>('GET', '/session'));
  });
  return (
    <Page title="Choose an account">
      <p>You are a member of several accounts. Which one do you want to work in?</p>
      <ul className="accounts" aria-label="Accounts">
        {session.accounts.map((account) => (
          <li key={account.id}>
            <button
              type="button"
              disabled={choose.pending}
              aria-current={session.account?.id === account.id ? 'true' : undefined}
              onClick={() => void choose.run(account.id)}
            >
              {account.name}
            </button>{' '}
            <span className="note">{account.role}</span>
          </li>
        ))}
      </ul>
      <ErrorNote error={choose.error} />
      <button type="button" onClick={onSignOut}>
        Sign out
      </button>
    </Page>
  );
}
