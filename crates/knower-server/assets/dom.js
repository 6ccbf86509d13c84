// Small DOM helpers. Text from the vault, the queue or a model is only
// ever set as text; the one exception is note HTML, which the server has
// sanitised and the page's CSP keeps from running script.

/// `h('a', {href: '#'}, 'text', child)`: an element; attributes starting
/// with `on` become listeners, `false`/`null` attributes are left out.
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2), value);
    } else if (name === 'class') {
      element.className = value;
    } else if (name === 'dataset') {
      Object.assign(element.dataset, value);
    } else {
      element.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(element, child);
    else element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/// Replaces an element's children.
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

const SVG = 'http://www.w3.org/2000/svg';
const PATHS = {
  folder: 'M3 7a2 2 0 0 1 2-2h4l2 2h8a2 2 0 0 1 2 2v8a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2z',
  file: 'M6 3h8l4 4v14H6zM14 3v4h4',
  chevron: 'M9 6l6 6-6 6',
  image: 'M4 5h16v14H4zM4 16l5-5 4 4 3-3 4 4M15 9.5a1 1 0 1 0 0-.01',
  undo: 'M9 14L4 9l5-5M4 9h11a5 5 0 0 1 0 10h-3',
  retry: 'M20 11a8 8 0 1 0-2.3 5.7M20 4v7h-7',
  raw: 'M8 6l-5 6 5 6M16 6l5 6-5 6',
  reply: 'M10 9V5l-7 7 7 7v-4.1c5 0 8.5 1.6 11 5.1-1-5-4-10-11-11z',
  close: 'M6 6l12 12M18 6L6 18',
};

export function icon(name) {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  const path = document.createElementNS(SVG, 'path');
  path.setAttribute('d', PATHS[name] ?? PATHS.file);
  svg.append(path);
  return svg;
}

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

/// "3 minutes ago", with the exact time as a tooltip.
export function when(iso) {
  if (!iso) return '';
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return h('span', {}, iso);
  const seconds = (at.getTime() - Date.now()) / 1000;
  const units = [['year', 31536000], ['month', 2592000], ['day', 86400], ['hour', 3600], ['minute', 60]];
  let text = relative.format(Math.round(seconds), 'second');
  if (Math.abs(seconds) < 45) text = 'just now';
  for (const [unit, size] of units) {
    if (Math.abs(seconds) >= size) {
      text = relative.format(Math.round(seconds / size), unit);
      break;
    }
  }
  return h('time', { datetime: iso, title: at.toLocaleString() }, text);
}

/// The link that opens a vault file in the UI, optionally at some lines.
export function fileHref(path, lines) {
  const encoded = path.split('/').map(encodeURIComponent).join('/');
  return `#/file/${encoded}${lines ? `?lines=${lines}` : ''}`;
}

export function bytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
