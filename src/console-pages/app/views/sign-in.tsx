/** Getting in: the sign-in form (an e-mailed link), and the pages the e-mailed sign-in and invitation links open. */
import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { fieldOf } from '../api.ts';
import { Feedback, useAction } from '../kit/feedback.tsx';
import { TextField } from '../kit/field.tsx';
import { PageHeader } from '../kit/page-header.tsx';
import { t } from '../i18n.ts';
import { useSession } from '../session.tsx';
import type { ViewDef } from '../view.ts';

/**
 * Where to go after the e-mailed link (the view that asked for a session), kept in this browser meanwhile: the link
 * often opens in a new tab.
 */
const NEXT = 'tessera.console.next';
const isConsolePath = (path: string | null | undefined): path is string =>
  !!path && path.startsWith('/console/') && !path.startsWith('/console/sign-in');

function SignIn() {
  const { client } = useSession();
  const { query } = useLocation();
  const [email, setEmail] = useState('');
  const send = useAction();
  const emailError = fieldOf(send.error, { email: 'email' }) ? send.message : undefined;
  return (
    <>
      <PageHeader title={t('views.signIn.title')} intro={t('views.signIn.intro')} />
      <form
        novalidate
        onSubmit={(e) => {
          e.preventDefault();
          void send.run(async () => {
            await client.call('request_console_sign_in_link', { email: email.trim() });
            try {
              if (isConsolePath(query.next)) localStorage.setItem(NEXT, query.next);
            } catch {
              // Storage may be off: the console's start then.
            }
            return t('views.signIn.sent');
          });
        }}
      >
        <TextField
          id="email"
          label={t('views.signIn.email')}
          type="email"
          autocomplete="email"
          required
          value={email}
          onValue={setEmail}
          error={emailError}
        />
        <div class="actions">
          <button type="submit" class="primary" aria-busy={send.busy ? 'true' : undefined}>
            {t('views.signIn.submit')}
          </button>
          <Feedback of={send} id="sign-in-feedback" />
        </div>
      </form>
    </>
  );
}

/** Redeems the token in the link's fragment (never sent to the server in a URL), then opens the console. */
function Redeem(props: { kind: 'verify' | 'accept' }) {
  const { client, signedIn } = useSession();
  const { route, query } = useLocation();
  const redeem = useAction();
  useEffect(() => {
    const token = new URLSearchParams(location.hash.slice(1)).get('token');
    history.replaceState(null, '', location.pathname + location.search);
    void redeem.run(async () => {
      if (!token) throw new Error('missing');
      const me =
        props.kind === 'verify'
          ? await client.call('complete_console_sign_in', { token })
          : await client.call('accept_team_invitation', { token });
      signedIn(me);
      let next: string | null = query.next ?? null;
      try {
        next ??= localStorage.getItem(NEXT);
        localStorage.removeItem(NEXT);
      } catch {
        // Storage may be off.
      }
      route(isConsolePath(next) ? next : '/console', true);
    });
  }, []);
  return (
    <>
      <PageHeader title={t(props.kind === 'verify' ? 'views.verify.title' : 'views.accept.title')} />
      {redeem.busy ? <p>{t('views.verify.working')}</p> : null}
      <Feedback of={redeem} />
      {redeem.failed ? (
        <p>
          <a href="/console/sign-in">{t('views.verify.again')}</a>
        </p>
      ) : null}
    </>
  );
}

export const signInView: ViewDef = {
  id: 'sign-in',
  path: '/console/sign-in',
  title: 'views.signIn.title',
  component: SignIn,
  nav: false,
  public: true,
};
export const verifyView: ViewDef = {
  id: 'verify',
  path: '/console/verify',
  title: 'views.verify.title',
  component: () => <Redeem kind="verify" />,
  nav: false,
  public: true,
};
export const acceptView: ViewDef = {
  id: 'accept',
  path: '/console/accept',
  title: 'views.accept.title',
  component: () => <Redeem kind="accept" />,
  nav: false,
  public: true,
};
