/** The buyer e-mails (sign-in link, 6-digit code) in the six buyer-page languages, and the language choice rule. */

export const LANGS = ['en', 'de', 'es', 'fr', 'hu', 'pt-BR'] as const;
export type Lang = (typeof LANGS)[number];

/**
 * The first supported language among the candidates, most preferred first (an explicit `lang`, then the
 * buyer's own choice, then the browser's languages). `de-AT` matches `de`, `pt` matches `pt-BR`; default `en`.
 */
export function resolveLang(candidates: readonly (string | null | undefined)[]): Lang {
  return matchLang(candidates, LANGS, 'en');
}

/** The first of `langs` matching a candidate (exact tag, else same primary subtag), else `fallback`. */
export function matchLang<L extends string>(candidates: readonly (string | null | undefined)[], langs: readonly L[], fallback: L): L {
  for (const c of candidates) {
    if (!c) continue;
    const exact = langs.find((l) => l.toLowerCase() === c.toLowerCase());
    if (exact) return exact;
    const primary = c.split('-')[0]!.toLowerCase();
    const partial = langs.find((l) => l.split('-')[0]!.toLowerCase() === primary);
    if (partial) return partial;
  }
  return fallback;
}

/** A supported language tag, or undefined (used to validate `lang` inputs). */
export function isLang(value: string): value is Lang {
  return (LANGS as readonly string[]).includes(value);
}

export interface MailText {
  subject: string;
  text: string;
}

interface Strings {
  signInSubject: string;
  signInBody: (link: string, minutes: number, shop: string | null) => string;
  codeSubject: string;
  codeBody: (code: string, action: string, minutes: number) => string;
  actions: Record<CodePurpose, string>;
}

export type CodePurpose = 'save_card' | 'create_agent' | 'grant_permission' | 'change_agent_card' | 'raise_card_cap';

const STRINGS: Record<Lang, Strings> = {
  en: {
    signInSubject: 'Your sign-in link',
    signInBody: (link, m, shop) =>
      `Open this link to sign in${shop ? ` for ${shop}` : ''}:\n\n${link}\n\nIt works once and expires in ${m} minutes. If you did not ask for it, ignore this e-mail.`,
    codeSubject: 'Your verification code',
    codeBody: (code, action, m) =>
      `Your code to ${action} is:\n\n${code}\n\nEnter it on the Tessera screen. It expires in ${m} minutes. Never share it with a shop or an agent.`,
    actions: {
      save_card: 'save a card',
      create_agent: 'create an agent',
      grant_permission: 'grant an agent a permission',
      change_agent_card: "change an agent's card",
      raise_card_cap: "raise a card's spending cap",
    },
  },
  de: {
    signInSubject: 'Ihr Anmeldelink',
    signInBody: (link, m, shop) =>
      `Öffnen Sie diesen Link, um sich${shop ? ` bei ${shop}` : ''} anzumelden:\n\n${link}\n\nEr funktioniert einmal und läuft in ${m} Minuten ab. Wenn Sie ihn nicht angefordert haben, ignorieren Sie diese E-Mail.`,
    codeSubject: 'Ihr Bestätigungscode',
    codeBody: (code, action, m) =>
      `Ihr Code, um ${action}:\n\n${code}\n\nGeben Sie ihn auf der Tessera-Seite ein. Er läuft in ${m} Minuten ab. Geben Sie ihn nie an einen Shop oder Agenten weiter.`,
    actions: {
      save_card: 'eine Karte zu speichern',
      create_agent: 'einen Agenten anzulegen',
      grant_permission: 'einem Agenten eine Berechtigung zu erteilen',
      change_agent_card: 'die Karte eines Agenten zu ändern',
      raise_card_cap: 'das Ausgabelimit einer Karte zu erhöhen',
    },
  },
  es: {
    signInSubject: 'Tu enlace de acceso',
    signInBody: (link, m, shop) =>
      `Abre este enlace para iniciar sesión${shop ? ` en ${shop}` : ''}:\n\n${link}\n\nFunciona una vez y caduca en ${m} minutos. Si no lo pediste, ignora este correo.`,
    codeSubject: 'Tu código de verificación',
    codeBody: (code, action, m) =>
      `Tu código para ${action} es:\n\n${code}\n\nIntrodúcelo en la pantalla de Tessera. Caduca en ${m} minutos. No lo compartas nunca con una tienda ni con un agente.`,
    actions: {
      save_card: 'guardar una tarjeta',
      create_agent: 'crear un agente',
      grant_permission: 'conceder un permiso a un agente',
      change_agent_card: 'cambiar la tarjeta de un agente',
      raise_card_cap: 'subir el límite de gasto de una tarjeta',
    },
  },
  fr: {
    signInSubject: 'Votre lien de connexion',
    signInBody: (link, m, shop) =>
      `Ouvrez ce lien pour vous connecter${shop ? ` à ${shop}` : ''} :\n\n${link}\n\nIl ne sert qu’une fois et expire dans ${m} minutes. Si vous ne l’avez pas demandé, ignorez cet e-mail.`,
    codeSubject: 'Votre code de vérification',
    codeBody: (code, action, m) =>
      `Votre code pour ${action} :\n\n${code}\n\nSaisissez-le sur l’écran Tessera. Il expire dans ${m} minutes. Ne le communiquez jamais à une boutique ni à un agent.`,
    actions: {
      save_card: 'enregistrer une carte',
      create_agent: 'créer un agent',
      grant_permission: 'accorder une autorisation à un agent',
      change_agent_card: 'changer la carte d’un agent',
      raise_card_cap: 'augmenter le plafond d’une carte',
    },
  },
  hu: {
    signInSubject: 'Bejelentkezési link',
    signInBody: (link, m, shop) =>
      `A bejelentkezéshez${shop ? ` (${shop})` : ''} nyissa meg ezt a linket:\n\n${link}\n\nEgyszer használható, és ${m} perc múlva lejár. Ha nem Ön kérte, hagyja figyelmen kívül ezt az e-mailt.`,
    codeSubject: 'Ellenőrző kód',
    codeBody: (code, action, m) =>
      `A kód, amellyel ${action}:\n\n${code}\n\nÍrja be a Tessera képernyőjén. ${m} perc múlva lejár. Soha ne adja meg boltnak vagy ügynöknek.`,
    actions: {
      save_card: 'kártyát menthet',
      create_agent: 'ügynököt hozhat létre',
      grant_permission: 'engedélyt adhat egy ügynöknek',
      change_agent_card: 'módosíthatja egy ügynök kártyáját',
      raise_card_cap: 'megemelheti egy kártya költési limitjét',
    },
  },
  'pt-BR': {
    signInSubject: 'Seu link de acesso',
    signInBody: (link, m, shop) =>
      `Abra este link para entrar${shop ? ` em ${shop}` : ''}:\n\n${link}\n\nEle funciona uma vez e expira em ${m} minutos. Se você não pediu, ignore este e-mail.`,
    codeSubject: 'Seu código de verificação',
    codeBody: (code, action, m) =>
      `Seu código para ${action} é:\n\n${code}\n\nDigite-o na tela da Tessera. Ele expira em ${m} minutos. Nunca o compartilhe com uma loja ou um agente.`,
    actions: {
      save_card: 'salvar um cartão',
      create_agent: 'criar um agente',
      grant_permission: 'conceder uma permissão a um agente',
      change_agent_card: 'trocar o cartão de um agente',
      raise_card_cap: 'aumentar o limite de gastos de um cartão',
    },
  },
};

/** The sign-in e-mail. */
export function signInMail(lang: Lang, link: string, minutes: number, shopName: string | null): MailText {
  const s = STRINGS[lang];
  return { subject: s.signInSubject, text: s.signInBody(link, minutes, shopName) };
}

/** The verification-code e-mail. */
export function codeMail(lang: Lang, code: string, purpose: CodePurpose, minutes: number): MailText {
  const s = STRINGS[lang];
  return { subject: s.codeSubject, text: s.codeBody(code, s.actions[purpose], minutes) };
}
