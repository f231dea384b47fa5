/** An event's time zone field: a text input suggesting the browser's IANA zones (a datalist); empty means UTC. */
import { TextField } from '../kit/field.tsx';
import { t } from '../i18n.ts';

const ZONES_LIST = 'time-zones';

/** The field with its datalist; `error` is the form's message for it (e.g. unknown_time_zone). */
export function TimeZoneField(p: { id: string; value: string; onValue: (v: string) => void; error?: string }) {
  return (
    <>
      <TextField
        id={p.id}
        label={t('views.events.fieldTimeZone')}
        hint={t('views.events.timeZoneHint')}
        maxLength={64}
        autocomplete="off"
        list={ZONES_LIST}
        value={p.value}
        onValue={p.onValue}
        error={p.error}
      />
      <datalist id={ZONES_LIST}>
        {Intl.supportedValuesOf('timeZone').map((z) => (
          <option key={z} value={z} />
        ))}
      </datalist>
    </>
  );
}
