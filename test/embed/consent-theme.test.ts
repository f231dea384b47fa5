/**
 * The consent view's theme derivation: over many generated palettes, dark and light, every derived colour is readable
 * (WCAG AA).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  contrast,
  deriveTheme,
  themeCss,
  themeProblem,
  type ThemeInput,
} from '../../src/domain/buyers/consent-theme.ts';
import { verifies } from '../support/requirements.ts';

/** A small deterministic generator (mulberry32), so a failure names a palette that can be replayed. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const hex = (r: () => number, lo: number, hi: number) =>
  `#${[0, 1, 2]
    .map(() =>
      Math.floor(lo + r() * (hi - lo))
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;

/** 500 palettes: half dark surfaces, half light, with text, accent and accent text of any colour (often unreadable). */
function palettes(count: number): ThemeInput[] {
  const r = rng(20261123);
  const out: ThemeInput[] = [];
  for (let i = 0; i < count; i++) {
    const dark = i % 2 === 0;
    const surface = dark ? hex(r, 0, 90) : hex(r, 170, 256);
    out.push({
      background: hex(r, 0, 256),
      surface,
      text: r() < 0.7 ? (dark ? hex(r, 150, 256) : hex(r, 0, 110)) : hex(r, 0, 256),
      accent: hex(r, 0, 256),
      ...(r() < 0.5 ? { accentText: hex(r, 0, 256) } : {}),
    });
  }
  return out;
}

test(`${verifies('SPEC-2.3-theme-font')}500 generated palettes, dark and light: text and secondary text reach 4.5:1, dividers 3:1, accent text 4.5:1`, () => {
  const all = palettes(500);
  let checked = 0;
  let kept = 0;
  for (const p of all) {
    assert.equal(themeProblem({ ...p }), null);
    const d = deriveTheme(p);
    const where = JSON.stringify(p);
    assert.ok(contrast(d.text, d.surface) >= 4.5, `text on surface: ${where}`);
    assert.ok(contrast(d.secondaryText, d.surface) >= 4.5, `secondary text on surface: ${where}`);
    assert.ok(contrast(d.divider, d.surface) >= 3, `divider on surface: ${where}`);
    assert.ok(contrast(d.accentText, d.accent) >= 4.5, `accent text on accent: ${where}`);
    assert.ok(contrast(d.link, d.surface) >= 4.5, `links on surface: ${where}`);
    assert.ok(
      contrast(d.danger, d.surface) >= 4.5 && contrast(d.ok, d.surface) >= 4.5,
      `error and success text: ${where}`,
    );
    assert.ok(contrast(d.focus, d.surface) >= 3, `focus ring: ${where}`);
    // Secondary text is softer than the text (or equal when nothing softer is readable); dividers softer still.
    assert.ok(contrast(d.secondaryText, d.surface) <= contrast(d.text, d.surface) + 1e-9, `secondary softer: ${where}`);
    assert.ok(
      contrast(d.divider, d.surface) <= contrast(d.secondaryText, d.surface) + 1e-9,
      `divider softer: ${where}`,
    );
    if (d.text === p.text) kept++;
    checked++;
  }
  assert.equal(checked, 500);
  assert.ok(kept > 250, `a readable text colour the partner chose is kept (${kept} of 500)`);
});

test('a readable palette keeps its colours; an unreadable text colour is replaced by black or white', () => {
  const light = deriveTheme({ background: '#eeeeee', surface: '#ffffff', text: '#222222', accent: '#0050b3' });
  assert.equal(light.text, '#222222');
  assert.equal(light.link, '#0050b3');
  assert.equal(light.accentText, '#ffffff');
  assert.notEqual(light.secondaryText, light.text, 'secondary text is derived, softer');
  const bad = deriveTheme({ background: '#000', surface: '#111', text: '#222', accent: '#333', accentText: '#343434' });
  assert.equal(bad.text, '#ffffff');
  assert.equal(bad.accentText, '#ffffff');
  assert.equal(bad.link, '#ffffff', 'an unreadable accent is not used for links');
});

test(`${verifies('SPEC-2.3-theme-font')}a font is kept as a family name; without one the view keeps its default typeface`, () => {
  assert.match(
    themeCss(deriveTheme({ background: '#fff', surface: '#fff', text: '#000', accent: '#005', font: 'Fira Sans' })),
    /--font: "Fira Sans", system-ui/,
  );
  assert.doesNotMatch(
    themeCss(deriveTheme({ background: '#fff', surface: '#fff', text: '#000', accent: '#005' })),
    /--font/,
  );
});

test('malformed themes are refused naming the field', () => {
  assert.equal(themeProblem({ background: 'red', surface: '#fff', text: '#000', accent: '#005' })?.field, 'background');
  assert.equal(
    themeProblem({ background: '#fff', surface: '#fff', text: '#000', accent: '#005', font: 'x;}body{' })?.field,
    'font',
  );
  assert.equal(
    themeProblem({ background: '#fff', surface: '#fff', text: '#000', accent: '#005', shadow: '#000' })?.field,
    'shadow',
  );
  assert.equal(themeProblem({ background: '#fff', surface: '#fff', text: '#000' })?.field, 'accent');
});
