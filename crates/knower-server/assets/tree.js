// The sidebar's file tree. Reloaded (debounced) whenever files change;
// folders remember whether they are open, and a file that just appeared
// or changed is shown (its folders open) and highlighted for a moment.

import { get } from './api.js';
import { h, fill, icon, fileHref, bytes } from './dom.js';

const OPEN_KEY = 'knower-open-folders';

export class Tree {
  constructor(element, counter) {
    this.element = element;
    this.counter = counter;
    this.open = new Set(JSON.parse(localStorage.getItem(OPEN_KEY) || '["projects"]'));
    this.known = null; // paths seen at the last load; null before the first
    this.fresh = new Set();
    this.changed = new Set(); // files changed since the last load
    this.active = null;
    this.timer = null;
    this.root = null;
  }

  /// Every file path, for resolving `[[wiki links]]` by name.
  files() {
    const out = [];
    const walk = (node) => {
      if (node.kind === 'file') out.push(node.path);
      for (const child of node.children ?? []) walk(child);
    };
    if (this.root) walk(this.root);
    return out;
  }

  /// The tree's entry for `path` (size, tokens, last update), if loaded.
  find(path) {
    let node = this.root;
    for (const part of path.split('/')) {
      node = node?.children?.find((child) => child.name === part);
    }
    return node ?? null;
  }

  async load() {
    const root = await get('/api/tree');
    const paths = new Set();
    const walk = (node) => {
      paths.add(node.path);
      for (const child of node.children ?? []) walk(child);
    };
    walk(root);
    if (this.known) {
      for (const path of paths) if (!this.known.has(path)) this.fresh.add(path);
      for (const path of this.changed) if (paths.has(path)) this.fresh.add(path);
      // A note that just arrived or changed is shown: its folders open.
      for (const path of this.fresh) this.openTo(path);
    }
    this.changed.clear();
    this.known = paths;
    this.root = root;
    this.render();
    this.fresh.clear();
  }

  /// Notes that `path` changed, to show it at the next load. tree.md is
  /// Knower's own map of the vault, rewritten with every new file.
  touch(path) {
    if (path !== 'tree.md') this.changed.add(path);
  }

  /// Many changes arrive together (an update touches several files): one
  /// reload for all of them.
  reloadSoon(onError) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.load().catch(onError), 120);
  }

  setActive(path) {
    this.active = path;
    if (path) this.openTo(path);
    this.render();
  }

  /// Opens the folders down to `path`.
  openTo(path) {
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) this.open.add(parts.slice(0, i).join('/'));
    this.save();
  }

  save() {
    localStorage.setItem(OPEN_KEY, JSON.stringify([...this.open]));
  }

  render() {
    if (!this.root) return;
    const children = this.root.children ?? [];
    this.counter.textContent = this.root.files ? String(this.root.files) : '';
    if (!children.length) {
      fill(this.element, h('p', { class: 'muted' }, 'The vault is empty.'));
      return;
    }
    fill(this.element, h('ul', { role: 'tree' }, children.map((node) => this.node(node))));
    this.element.querySelector('[aria-current="page"]')?.scrollIntoView({ block: 'nearest' });
  }

  node(node) {
    const fresh = this.fresh.has(node.path) ? ' fresh' : '';
    const problem = node.problem ? ' problem' : '';
    if (node.kind === 'folder') {
      const isOpen = this.open.has(node.path);
      const toggle = () => {
        if (this.open.has(node.path)) this.open.delete(node.path);
        else this.open.add(node.path);
        this.save();
        this.render();
      };
      return h(
        'li',
        { role: 'treeitem', 'aria-expanded': String(isOpen) },
        h(
          'button',
          {
            type: 'button',
            class: `tree-row folder${fresh}`,
            'aria-expanded': String(isOpen),
            'data-path': node.path,
            title: `${node.files ?? 0} files, ${bytes(node.size)}`,
            onclick: toggle,
          },
          chevron(),
          icon('folder'),
          h('span', { class: 'name' }, node.name),
          h('span', { class: 'meta' }, node.files ? String(node.files) : ''),
        ),
        isOpen && node.children?.length
          ? h('ul', { role: 'group' }, node.children.map((child) => this.node(child)))
          : null,
      );
    }
    const image = /\.(png|jpe?g|gif|webp|svg)$/i.test(node.name);
    return h(
      'li',
      { role: 'treeitem' },
      h(
        'a',
        {
          class: `tree-row file${fresh}${problem}`,
          href: fileHref(node.path),
          'data-path': node.path,
          'aria-current': this.active === node.path ? 'page' : false,
          title: node.problem ? `${node.path}: ${node.problem}` : node.path,
        },
        h('span', { class: 'chevron-space' }),
        icon(image ? 'image' : 'file'),
        h('span', { class: 'name' }, node.name),
      ),
    );
  }
}

function chevron() {
  const svg = icon('chevron');
  svg.classList.add('chevron');
  return svg;
}
