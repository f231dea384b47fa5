/**
 * A secret the API returns once (an API key's token, a webhook's signing secret): shown beside the form that made it,
 * selectable, with a copy button and the warning that it will not be shown again.
 */
import { useState } from 'preact/hooks';
import { t } from '../i18n.ts';

export function SecretOnce(props: { id: string; title: string; secret: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="secret-once" id={props.id} role="group" aria-labelledby={`${props.id}-title`}>
      <p id={`${props.id}-title`}>
        <strong>{props.title}</strong> {t('kit.secret.once')}
      </p>
      <p>
        <code class="secret" data-secret>
          {props.secret}
        </code>
      </p>
      <button
        type="button"
        class="secondary"
        onClick={() =>
          void navigator.clipboard?.writeText(props.secret).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        {t('kit.secret.copy')}
      </button>
      <span role="status" aria-live="polite" class="feedback">
        {copied ? t('kit.secret.copied') : ''}
      </span>
    </div>
  );
}
