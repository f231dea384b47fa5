/** The console's entry point: picks the language, loads its messages, then renders the application. */
import { render } from 'preact';
import { App } from './shell/app.tsx';
import { initialLang, loadMessages } from './i18n.ts';

const root = document.getElementById('app');
if (root) {
  await loadMessages(initialLang());
  render(<App />, root);
}
