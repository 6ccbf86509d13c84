// Knower's web UI: the entry point. It wires the sidebar (tree, inbox
// badge, places), the central views (chosen by the address's #fragment, so
// back and forward work), the composer, and the live events that keep all
// of them current.

import { get, post, followEvents } from './api.js';
import { h, fill, when } from './dom.js';
import { Tree } from './tree.js';
import { Composer } from './composer.js';
import { fileView, activityView, inboxView, inboxItemView, updatesView, journalView } from './views.js';
import { knowledgeView } from './knowledge.js';
import { chatView } from './chat.js';
import { gardenView } from './garden.js';

const ACTIVITY_KEY = 'knower-activity';
const KEEP = 50;

/// What this browser sent and asked, kept across reloads.
class Activity {
  constructor(onChange, onFailed) {
    this.onChange = onChange;
    this.onFailed = onFailed;
    /// The last status heard of each update, ours or not.
    this.latest = new Map();
    try {
      this.cards = JSON.parse(localStorage.getItem(ACTIVITY_KEY) || '[]');
    } catch {
      this.cards = [];
    }
    // A search cut short by a reload will not finish.
    for (const card of this.cards) {
      if (card.pending) Object.assign(card, { pending: false, error: 'Interrupted by a reload; ask again.' });
    }
  }

  save() {
    this.cards = this.cards.slice(-KEEP);
    localStorage.setItem(ACTIVITY_KEY, JSON.stringify(this.cards));
    this.onChange();
  }

  add(card) {
    card.at = new Date().toISOString();
    // Its events may have come before the server's answer did.
    if (card.id && this.latest.has(card.id)) this.merge(card, this.latest.get(card.id));
    this.cards.push(card);
    this.save();
    return card;
  }

  change(card, fields) {
    Object.assign(card, fields);
    this.save();
  }

  clear() {
    this.cards = [];
    this.save();
  }

  /// An `update_status` event (or a fetched update) for one of ours.
  apply(status) {
    this.latest.set(status.id, status);
    const card = this.cards.find((c) => c.kind === 'update' && c.id === status.id);
    if (!card) return;
    this.merge(card, status);
    this.save();
  }

  merge(card, status) {
    const was = card.state;
    for (const field of ['state', 'summary', 'error', 'changed_files', 'inbox_id', 'outcome']) {
      if (status[field] !== undefined) card[field] = status[field];
    }
    if (card.state === 'failed' && was !== 'failed') this.onFailed(card);
  }

  /// Updates still in flight, to ask about after a reconnect.
  pending() {
    return this.cards.filter((c) => c.kind === 'update' && c.id && (c.state === 'queued' || c.state === 'running'));
  }
}

class App {
  constructor() {
    this.view = document.getElementById('view');
    this.root = document.getElementById('app');
    this.crumbs = document.getElementById('crumbs');
    this.tools = document.getElementById('tools');
    this.banner = document.getElementById('banner');
    this.badge = document.getElementById('inbox-badge');
    this.connection = document.getElementById('connection');
    this.sync = document.getElementById('sync');
    this.sync.addEventListener('click', () => this.syncNow());
    this.tree = new Tree(document.getElementById('tree'), document.getElementById('tree-count'));
    this.activity = new Activity(() => {
      if (this.current?.name === 'activity') this.current.load();
    }, (card) => {
      // One of ours failed: say so wherever the user is.
      const what = card.text.length > 60 ? `${card.text.slice(0, 60)}…` : card.text;
      this.fail(new Error(`“${what}” could not be filed: ${card.error ?? 'the update failed'}. See Activity to retry.`));
    });
    this.composer = new Composer(this);
    this.current = null;
    this.visit = null;
    this.inboxCount = 0;

    document.getElementById('banner-close').addEventListener('click', () => { this.banner.hidden = true; });
    window.addEventListener('hashchange', () => this.route());
    this.setupDrawer();
    document.addEventListener('keydown', (event) => {
      const typing = event.target.closest?.('input, textarea, select, [contenteditable]');
      if (event.key === '/' && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
        event.preventDefault();
        this.composer.focusSearch();
      }
    });
  }

  async start() {
    followEvents({
      file_changed: (data) => {
        if (!data.removed) this.tree.touch(data.path);
        this.tree.reloadSoon((error) => this.fail(error));
        this.current?.onFileChanged?.(data.path, data.removed);
      },
      inbox_updated: (data) => {
        this.setInboxCount(data.count);
        this.current?.onInbox?.();
      },
      update_status: (data) => {
        this.activity.apply(data);
        this.current?.onUpdate?.(data);
      },
      garden_progress: (data) => this.current?.onGarden?.('garden_progress', data),
      garden_cycle: (data) => this.current?.onGarden?.('garden_cycle', data),
      garden_error: (data) => this.current?.onGarden?.('garden_error', data),
      sync: (data) => {
        if (data.status) this.setSync(data.status, data.state);
        else this.sync.dataset.state = data.state;
        if (data.state === 'failed') this.fail(new Error(`Sync failed: ${data.error}`));
      },
      resync: () => this.resync(),
    }, (state) => this.setConnection(state));
    await Promise.all([
      this.tree.load().catch((error) => this.fail(error)),
      get('/api/inbox').then((items) => this.setInboxCount(items.length)).catch((error) => this.fail(error)),
      get('/api/sync').then((status) => this.setSync(status, 'idle')).catch(() => {}),
    ]);
    this.refreshPending();
    // Knower opens on what waits and what changed, not on a note.
    if (!location.hash) history.replaceState(null, '', '#/activity');
    this.route();
  }

  /// Events were missed (the server restarted, or we were away too long):
  /// reload everything the events would have told us.
  async resync() {
    try {
      await this.tree.load();
      const items = await get('/api/inbox');
      this.setInboxCount(items.length);
      await this.refreshPending();
      await this.current?.load();
    } catch (error) {
      this.fail(error);
    }
  }

  async refreshPending() {
    for (const card of this.activity.pending()) {
      try {
        this.activity.apply(await get(`/updates/${encodeURIComponent(card.id)}`));
      } catch (error) {
        if (error.status === 404) this.activity.apply({ id: card.id, state: 'failed', error: 'The server no longer knows this update.' });
      }
    }
  }

  route() {
    const hash = location.hash.slice(1) || '/activity';
    const [route, query = ''] = hash.split('?');
    const params = new URLSearchParams(query);
    const parts = route.split('/').filter(Boolean);
    const [name, ...rest] = parts;
    const arg = rest.map(decodeURIComponent).join('/');
    this.current?.leave?.();
    this.visit = {};
    const app = this.seenBy(this.visit);
    let view;
    switch (name) {
      case 'file': view = fileView(app, arg, params); break;
      case 'inbox': view = arg ? inboxItemView(app, arg) : inboxView(app); break;
      case 'updates': view = updatesView(app); break;
      case 'journal': view = journalView(app); break;
      case 'knowledge': view = knowledgeView(app); break;
      case 'chat': view = chatView(app); break;
      case 'garden': view = gardenView(app); break;
      default: view = activityView(app);
    }
    view.name = name === 'inbox' && arg ? 'inbox-item' : name || 'activity';
    this.current = view;
    for (const place of document.querySelectorAll('.place')) {
      const here = place.dataset.view === (name === 'file' ? '' : name || 'activity');
      place.toggleAttribute('aria-current', false);
      if (here) place.setAttribute('aria-current', 'page');
    }
    this.closeDrawer();
    this.view.scrollTop = 0;
    fill(this.view, h('p', { class: 'muted' }, 'Loading…'));
    view.load().catch((error) => this.fail(error));
  }

  /// The app as one visit's view sees it. Once the user has moved on, its
  /// `view` is a detached element and its title and tools are left alone,
  /// so that a load finishing late, a stream or a timer of a view already
  /// left cannot paint over the view now shown.
  seenBy(visit) {
    const offstage = document.createElement('div');
    return new Proxy(this, {
      get(app, key) {
        const left = app.visit !== visit;
        if (key === 'view' && left) return offstage;
        if ((key === 'setCrumbs' || key === 'setTools') && left) return () => {};
        const value = Reflect.get(app, key);
        return typeof value === 'function' ? value.bind(app) : value;
      },
    });
  }

  go(hash) {
    if (location.hash === hash) this.route();
    else location.hash = hash;
  }

  setCrumbs(path) {
    if (!path.includes('/') || !/\.\w+$/.test(path)) {
      fill(this.crumbs, path);
      document.title = `${path} · Knower`;
      return;
    }
    const parts = path.split('/');
    const name = parts.pop();
    fill(this.crumbs, parts.map((part) => [h('span', { class: 'dir' }, part), h('span', { class: 'sep' }, '/')]), name);
    document.title = `${name} · Knower`;
  }

  setTools(...children) {
    fill(this.tools, ...children);
  }

  setInboxCount(count) {
    this.inboxCount = count;
    this.badge.textContent = String(count);
    this.badge.hidden = count === 0;
    this.badge.setAttribute('aria-label', `${count} waiting`);
    // On a narrow screen the sidebar is a drawer: its menu button carries the count.
    const menuBadge = document.getElementById('menu-badge');
    menuBadge.textContent = String(count);
    menuBadge.hidden = count === 0;
    document.getElementById('menu').setAttribute('aria-label', count ? `Show the files and the inbox (${count} waiting)` : 'Show the files');
  }

  /// The header's sync: last sync, ahead, behind, conflicts waiting; a
  /// click syncs now. Hidden while the vault has no remote.
  setSync(status, state) {
    this.sync.hidden = !status.configured;
    this.sync.dataset.state = status.running ? 'running' : state === 'done' ? 'idle' : state;
    const last = status.last;
    const parts = [];
    if (!last) parts.push('never synced');
    else parts.push(last.ok ? `synced ${when(last.at).textContent}` : 'sync failed');
    if (status.ahead) parts.push(`${status.ahead} ahead`);
    if (status.behind) parts.push(`${status.behind} behind`);
    if (status.local_changes) parts.push(`${status.local_changes} to send`);
    if (status.conflicts_waiting) parts.push(`${status.conflicts_waiting} conflict${status.conflicts_waiting === 1 ? '' : 's'}`);
    this.sync.textContent = parts.join(' · ');
    this.sync.title = [
      `Sync with ${status.remote ?? 'the remote'}${status.branch ? ` (${status.branch})` : ''}: click to sync now.`,
      last && !last.ok ? `Last error: ${last.error}` : '',
    ].filter(Boolean).join('\n');
  }

  async syncNow() {
    this.sync.dataset.state = 'running';
    try {
      await post('/api/sync', {});
    } catch (error) {
      this.fail(error);
    }
    get('/api/sync').then((status) => this.setSync(status, 'idle')).catch(() => {});
  }

  setConnection(state) {
    this.connection.dataset.state = state;
    this.connection.title = state === 'live' ? 'Live: changes appear as they happen' : 'Reconnecting to the server…';
  }

  /// A failure, said plainly at the top of the page.
  fail(error) {
    console.error(error);
    this.banner.classList.remove('info');
    const text = error?.code === 'unauthorized'
      ? 'This Knower server needs its token. Open the page once as /?token=<your KNOWER_TOKEN>; the tab keeps it.'
      : error?.message || String(error);
    document.getElementById('banner-text').textContent = text;
    this.banner.hidden = false;
  }

  notify(text) {
    // An error on show is not hidden by good news.
    if (!this.banner.hidden && !this.banner.classList.contains('info')) return;
    this.banner.classList.add('info');
    document.getElementById('banner-text').textContent = text;
    this.banner.hidden = false;
    clearTimeout(this.notifyTimer);
    this.notifyTimer = setTimeout(() => {
      if (this.banner.classList.contains('info')) this.banner.hidden = true;
    }, 4000);
  }

  setupDrawer() {
    const menu = document.getElementById('menu');
    const scrim = document.getElementById('scrim');
    menu.addEventListener('click', () => {
      const open = !this.root.classList.contains('drawer-open');
      this.root.classList.toggle('drawer-open', open);
      menu.setAttribute('aria-expanded', String(open));
      scrim.hidden = !open;
    });
    scrim.addEventListener('click', () => this.closeDrawer());
  }

  closeDrawer() {
    this.root.classList.remove('drawer-open');
    document.getElementById('menu').setAttribute('aria-expanded', 'false');
    document.getElementById('scrim').hidden = true;
  }
}

const app = new App();
app.start();
