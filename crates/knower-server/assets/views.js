// The central zone's views: a file, the activity (answers and updates sent
// from this browser), the inbox and one of its items, the update history,
// and the journal. Each view renders into `app.view` and may react to live
// events through `onFileChanged`, `onInbox` and `onUpdate`.

import { get, post, fileUrl, rawUrl } from './api.js';
import { h, fill, icon, when, fileHref, bytes } from './dom.js';

// ---- rendered markdown ----------------------------------------------------

/// Puts server-rendered (sanitised) HTML into `container` and makes it work
/// inside the UI: links to notes open in the file view, `[[wiki links]]`
/// find their note by name, images load from the vault, and outside links
/// open in a new tab.
export function showMarkdown(container, html, from, files) {
  container.innerHTML = html;
  const folder = from.includes('/') ? from.slice(0, from.lastIndexOf('/')) : '';
  for (const link of container.querySelectorAll('a[href]')) {
    const href = link.getAttribute('href');
    if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) {
      link.target = '_blank';
      continue;
    }
    if (href.startsWith('#')) {
      // An anchor inside the note (a footnote): scroll to it, without
      // touching the address, which chooses the view.
      link.addEventListener('click', (event) => {
        event.preventDefault();
        const id = decodeURIComponent(href.slice(1));
        if (id) container.querySelector(`[id="${CSS.escape(id)}"]`)?.scrollIntoView({ block: 'center' });
      });
      continue;
    }
    const target = resolveNote(decodeURIComponent(href.split('#')[0]), folder, files);
    if (target) {
      link.setAttribute('href', fileHref(target));
    } else {
      link.classList.add('missing');
      link.title = 'No such note in the vault';
      link.removeAttribute('href');
    }
  }
  for (const image of container.querySelectorAll('img[src]')) {
    const src = image.getAttribute('src');
    if (/^(data:|blob:)/i.test(src)) continue;
    if (/^[a-z][a-z0-9+.-]*:/i.test(src) || src.startsWith('//')) {
      // Nothing is loaded from elsewhere (the page's CSP would refuse it).
      image.replaceWith(h('a', { href: src, target: '_blank', rel: 'noopener noreferrer' }, image.alt || src));
      continue;
    }
    image.src = rawUrl(join(folder, decodeURIComponent(src)));
    image.loading = 'lazy';
  }
  // Inline styles are refused by the CSP; table alignment is re-applied here.
  for (const cell of container.querySelectorAll('th[style], td[style]')) {
    const align = /text-align:\s*(left|right|center)/.exec(cell.getAttribute('style'));
    cell.removeAttribute('style');
    if (align) cell.style.textAlign = align[1];
  }
}

function join(folder, relative) {
  const parts = relative.startsWith('/') ? [] : folder ? folder.split('/') : [];
  for (const part of relative.split('/')) {
    if (part === '..') parts.pop();
    else if (part && part !== '.') parts.push(part);
  }
  return parts.join('/');
}

function resolveNote(href, folder, files) {
  if (!href) return null;
  const direct = join(folder, href);
  const candidates = [direct, `${direct}.md`, join('', href), `${join('', href)}.md`];
  for (const candidate of candidates) if (files.includes(candidate)) return candidate;
  // A wiki link names a note: match its file name, as Knower makes file
  // names from titles (`[[Acme Corp]]` is `acme-corp.md`).
  const name = slug(href.split('/').pop().replace(/\.md$/i, ''));
  const named = files.filter((path) => slug(path.split('/').pop().replace(/\.md$/i, '')) === name);
  // A note beside this one first, then the knowledge graph's, then any.
  return named.find((path) => path.startsWith(`${folder}/`)) ?? named.find((path) => path.startsWith('graph/')) ?? named[0] ?? null;
}

/// As `knower_vault::slug`: lower-case letters and digits, runs of anything
/// else as one `-`.
function slug(text) {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-+|-+$/g, '');
}

/// "12-14" → [12, 14]
function parseLines(text) {
  const match = /^(\d+)(?:-(\d+))?$/.exec(text ?? '');
  if (!match) return null;
  const start = Number(match[1]);
  return [start, Number(match[2] ?? start)];
}

// ---- the file view --------------------------------------------------------

export function fileView(app, path, params) {
  let lines = parseLines(params.get('lines'));
  // Text that is not markdown (JSON, YAML, code) is shown as it is.
  let raw = !/\.(md|markdown)$/i.test(path);
  let data = null;
  let scrollAfterLoad = true;
  let generation = 0;

  const rawButton = h(
    'button',
    { type: 'button', class: 'button toggle', 'aria-pressed': String(raw), title: 'Show the markdown as stored' },
    icon('raw'),
    'Raw',
  );
  rawButton.addEventListener('click', () => {
    raw = !raw;
    rawButton.setAttribute('aria-pressed', String(raw));
    render();
  });
  app.setTools(rawButton);
  app.setCrumbs(path);
  app.tree.setActive(path);

  const load = async () => {
    if (/\.(png|jpe?g|gif|webp)$/i.test(path)) {
      showBinary();
      return;
    }
    // Two changes in a row: only the newest load may render.
    const mine = ++generation;
    let loaded;
    try {
      loaded = await get(fileUrl(path));
      if (mine !== generation) return;
      data = loaded;
    } catch (error) {
      if (mine !== generation) return;
      if (error.status === 422) {
        showBinary();
        return;
      }
      if (error.status === 404) {
        data = null;
        fill(
          app.view,
          h('div', { class: 'empty' }, h('strong', {}, 'This file is not in the vault'), 'It may have been moved or deleted. ', h('a', { href: '#/journal' }, 'See the journal')),
        );
        return;
      }
      throw error;
    }
    render();
  };

  // An image is shown; any other file that is not text can be downloaded.
  const showBinary = () => {
    rawButton.hidden = true;
    const image = /\.(png|jpe?g|gif|webp)$/i.test(path);
    fill(app.view, h('div', { class: image ? 'picture' : 'empty' },
      image
        ? h('img', { src: `${rawUrl(path)}&v=${Date.now()}`, alt: path.split('/').pop(), id: 'file-image' })
        : [h('strong', {}, 'This file is not text'), h('a', { href: rawUrl(path), download: path.split('/').pop() }, 'Download it')]));
  };

  const render = () => {
    if (!data) return;
    const scroll = app.view.scrollTop;
    const body = h('article', { class: raw ? 'raw' : 'markdown', id: 'file-body', 'data-path': path });
    if (raw) {
      data.markdown.split('\n').forEach((text, i) => {
        body.append(h('span', { 'data-line': i + 1, class: lines && i + 1 >= lines[0] && i + 1 <= lines[1] ? 'cited' : false }, text || '\u200b'));
      });
    } else {
      showMarkdown(body, data.html, path, app.tree.files());
    }
    const properties = data.frontmatter && !raw
      ? h('details', { class: 'properties', open: lines && lines[0] < data.body_line ? true : false }, h('summary', {}, 'Properties'), h('pre', {}, data.frontmatter))
      : null;
    const entry = app.tree.find(path);
    const meta = entry
      ? h('div', { class: 'file-meta' },
        entry.updated ? h('span', {}, 'Updated ', when(entry.updated)) : null,
        entry.tokens ? h('span', {}, `${entry.tokens} tokens`) : null,
        h('span', {}, bytes(entry.size)))
      : null;
    fill(app.view, h('div', {}, meta, properties, body));
    if (!raw && lines) highlight(body, lines, data.body_line);
    if (scrollAfterLoad && lines) {
      body.querySelector('.cited')?.scrollIntoView({ block: 'center' });
    } else if (!scrollAfterLoad) {
      app.view.scrollTop = scroll;
    }
    scrollAfterLoad = false;
  };

  return {
    load,
    onFileChanged(changed, removed) {
      if (changed !== path) return;
      if (removed) {
        data = null;
        fill(app.view, h('div', { class: 'empty' }, h('strong', {}, 'This file was deleted'), h('a', { href: '#/journal' }, 'The journal can undo it')));
        return;
      }
      // Re-rendered in place; the reader keeps their position.
      lines = null;
      load().catch((error) => app.fail(error));
    },
  };
}

/// Marks the rendered blocks that hold the cited file lines.
function highlight(body, [start, end], bodyLine) {
  const offset = bodyLine - 1; // body line n is file line n + offset
  for (const block of body.querySelectorAll('[data-lines]')) {
    const [first, last] = parseLines(block.dataset.lines) ?? [0, -1];
    if (first + offset <= end && last + offset >= start) block.classList.add('cited');
  }
}

// ---- activity: where Knower opens -------------------------------------------
//
// What waits for the person (inbox items), what changed lately in the vault
// (whoever changed it), then the answers and updates: those sent from this
// browser, and those sent from elsewhere (the command line, MCP, HTTP), so
// that nothing sent is missing from here.

const STEPS = ['queued', 'running', 'done'];
/// Recent changes shown at the top.
const RECENT = 5;

export function activityView(app) {
  app.setTools(
    app.activity.cards.length
      ? h('button', { type: 'button', class: 'button', onclick: () => { app.activity.clear(); view.load(); } }, 'Clear')
      : null,
  );
  app.setCrumbs('Activity');
  app.tree.setActive(null);
  const view = {
    async load() {
      const [inbox, changes, updates] = await Promise.all([
        get('/api/inbox').catch(() => []),
        get(`/api/log?limit=${RECENT}`).catch(() => []),
        get('/updates?limit=50').catch(() => []),
      ]);
      const mine = new Set(app.activity.cards.map((card) => card.id).filter(Boolean));
      // Sent from elsewhere: as cards of their own, in time order with ours.
      const elsewhere = updates.filter((update) => !mine.has(update.id)).map((update) => ({
        ...update, kind: 'update', elsewhere: true, at: update.accepted_at, text: update.headline,
      }));
      const cards = [...app.activity.cards, ...elsewhere].sort((a, b) => (a.at ?? '').localeCompare(b.at ?? ''));
      const home = h('section', { class: 'home', id: 'home' },
        inbox.length
          ? h('p', { class: 'waiting' }, h('a', { class: 'button', href: '#/inbox' }, `${inbox.length} ${inbox.length === 1 ? 'item waits' : 'items wait'} for your answer in the inbox`))
          : h('p', { class: 'muted' }, 'Nothing waits for your answer.'),
        changes.length
          ? [h('h2', {}, 'Changed lately'), h('ul', { class: 'recent', id: 'recent' }, changes.map((change) => h('li', {},
            h('span', { class: 'muted' }, ACTORS[change.actor] ?? change.actor, ' · ', when(change.at), ' · '),
            change.files.slice(0, 3).map((file, i) => [i ? ', ' : null, file.change === 'D' ? h('s', {}, file.path) : h('a', { href: fileHref(file.path) }, file.path)]),
            change.files.length > 3 ? ` and ${change.files.length - 3} more` : null)))]
          : null);
      if (!cards.length) {
        fill(app.view, home, h('div', { class: 'empty' }, h('strong', {}, 'Nothing sent yet'), 'Tell Knower something below, or switch to Search and ask a question.'));
        return;
      }
      fill(app.view, home, h('ol', { class: 'cards', id: 'activity' }, cards.map((card) => activityCard(app, card))));
      // The newest card is at the bottom; one taller than the view (a long
      // answer) is shown from its top, where the question and the best
      // passage are.
      const newest = app.view.querySelector('#activity > li:last-child');
      if (newest && newest.offsetHeight > app.view.clientHeight) {
        app.view.scrollTop += newest.getBoundingClientRect().top - app.view.getBoundingClientRect().top - 8;
      } else {
        app.view.scrollTop = app.view.scrollHeight;
      }
    },
    onUpdate() {
      view.load();
    },
  };
  return view;
}

function activityCard(app, card) {
  if (card.kind === 'search') {
    const answer = card.answer;
    let content;
    if (card.pending) {
      content = h('p', { class: 'muted' }, h('span', { class: 'spinner' }), ' Searching the vault…');
    } else if (card.error) {
      content = h('p', { class: 'error-text' }, card.error);
    } else {
      const rendered = h('div', { class: 'markdown answer' });
      showMarkdown(rendered, answer.html, '', app.tree.files());
      content = [
        rendered,
        answer.sources?.length
          ? h('ul', { class: 'sources', 'aria-label': 'Sources' }, answer.sources.map((source) => {
            const lines = source.line_end > source.line_start ? `${source.line_start}-${source.line_end}` : `${source.line_start}`;
            return h('li', {}, h('a', { class: 'source', href: fileHref(source.path, lines) }, `${source.path}:${lines}`));
          }))
          : null,
      ];
    }
    return h(
      'li',
      { class: 'card answer-card', 'data-kind': 'search' },
      h('div', { class: 'card-head' }, h('span', { class: 'grow' }, h('b', {}, 'You asked'), ' ', when(card.at)), answer?.engine ? h('span', {}, answer.engine) : null),
      h('p', { class: 'card-text' }, card.text),
      h('hr'),
      content,
    );
  }
  const state = card.error && !card.state ? 'failed' : card.state ?? 'sending';
  const inInbox = state === 'done' && waitsInInbox(card);
  const label = inInbox ? 'in the inbox' : state;
  const step = STEPS.indexOf(state);
  return h(
    'li',
    { class: 'card mine update-card', 'data-kind': 'update', 'data-id': card.id ?? '', 'data-state': state },
    h(
      'div',
      { class: 'card-head' },
      h('span', { class: 'grow' }, h('b', { title: card.elsewhere ? 'from the command line, MCP or HTTP' : null }, card.elsewhere ? 'Sent from elsewhere' : card.inbox_ref ? 'You replied' : 'You sent'), ' ', when(card.at)),
      h('span', { class: 'pill', 'data-state': inInbox ? 'inbox' : state }, state === 'queued' || state === 'running' || state === 'sending' ? h('span', { class: 'spinner' }) : null, label),
    ),
    h('p', { class: 'card-text' }, card.text),
    card.files?.length ? h('ul', { class: 'files' }, card.files.map((name) => h('li', {}, name))) : null,
    h('div', { class: 'steps', 'data-state': state, 'aria-hidden': 'true' }, STEPS.map((_, i) => h('span', { class: step >= i || state === 'failed' ? 'on' : false }))),
    card.summary ? h('p', {}, card.summary) : null,
    changedFiles(card),
    inInbox ? h('div', { class: 'card-actions' }, h('a', { class: 'button', href: `#/inbox/${encodeURIComponent(card.inbox_id)}` }, 'Open in the inbox')) : null,
    state === 'failed'
      ? [
        h('p', { class: 'error-text' }, card.error ?? 'The update failed.'),
        card.id ? h('div', { class: 'card-actions' }, retryButton(app, card.id)) : null,
      ]
      : null,
  );
}

function retryButton(app, id) {
  return h('button', {
    type: 'button',
    class: 'button',
    onclick: async (event) => {
      event.currentTarget.disabled = true;
      try {
        await post(`/updates/${encodeURIComponent(id)}/retry`);
      } catch (error) {
        app.fail(error);
      }
    },
  }, icon('retry'), 'Retry');
}

// ---- the inbox --------------------------------------------------------------

export function inboxView(app) {
  app.setTools(null);
  app.setCrumbs('Inbox');
  app.tree.setActive(null);
  const view = {
    async load() {
      const items = await get('/api/inbox');
      app.setInboxCount(items.length);
      if (!items.length) {
        fill(app.view, h('div', { class: 'empty', id: 'inbox-empty' }, h('strong', {}, 'The inbox is empty'), 'What Knower cannot place lands here, with its reasoning, for you to decide.'));
        return;
      }
      fill(
        app.view,
        h('div', {},
          h('h2', { class: 'view-title' }, `${items.length} waiting for you`),
          h('ul', { class: 'cards', id: 'inbox-list' }, items.map((item) => h(
            'li', {},
            h('a', { class: 'card inbox-item', href: `#/inbox/${encodeURIComponent(item.id)}`, 'data-id': item.id },
              h('div', { class: 'card-head' }, h('span', { class: 'grow' }, when(item.created)), item.attachments.length ? `${item.attachments.length} attached` : null),
              h('div', { class: 'card-title' }, item.title),
              item.options.length ? h('div', { class: 'muted' }, `${item.kind === 'sync-conflict' ? 'Keep' : 'Where it could go'}: ${item.options.join(' · ')}`) : null),
          )))),
      );
    },
    onInbox() {
      view.load().catch((error) => app.fail(error));
    },
  };
  return view;
}

export function inboxItemView(app, id) {
  app.setTools(null);
  app.setCrumbs(`Inbox › ${id}`);
  app.tree.setActive(null);
  const view = {
    async load() {
      const items = await get('/api/inbox');
      app.setInboxCount(items.length);
      const item = items.find((candidate) => candidate.id === id);
      if (!item) {
        if (app.composer.replyingTo === id) app.composer.stopReplying();
        fill(app.view, h('div', { class: 'empty', id: 'inbox-resolved' }, h('strong', {}, 'This item has been resolved'), h('a', { href: '#/inbox' }, 'Back to the inbox')));
        return;
      }
      const review = await get(fileUrl(`${item.folder}/review.md`));
      const body = h('article', { class: 'markdown' });
      showMarkdown(body, review.html, `${item.folder}/review.md`, app.tree.files());
      app.setCrumbs(`Inbox › ${item.title}`);
      const reply = () => app.composer.replyTo(item);
      // The ways to answer come first; the reasoning follows.
      fill(
        app.view,
        h('div', {},
          h('div', { class: 'file-meta' }, h('span', {}, 'Waiting since ', when(item.created)), item.attachments.map((path) => h('a', { href: fileHref(path) }, path.split('/').pop()))),
          h('div', { class: 'card-actions answer-bar' },
            h('button', { type: 'button', class: 'button primary', id: 'reply', onclick: reply }, icon('reply'), 'Reply'),
            item.options.map((option, i) => h('button', {
              type: 'button',
              class: 'button option',
              title: item.kind === 'sync-conflict'
                ? `Reply "${i + 1}": ${option === 'both' ? 'keep both versions' : option === 'keep' || option === 'delete' ? `${option} the file` : `keep ${option}'s version`}`
                : `Reply "${i + 1}": file it in ${option}`,
              onclick: () => app.composer.replyTo(item, String(i + 1)),
            }, `${i + 1}. ${option}`)),
            h('button', { type: 'button', class: 'button danger', onclick: () => app.composer.replyTo(item, 'discard') }, 'Discard…')),
          body,
        ),
      );
    },
    onInbox() {
      view.load().catch((error) => app.fail(error));
    },
  };
  return view;
}

// ---- the update history -----------------------------------------------------

export function updatesView(app) {
  app.setTools(null);
  app.setCrumbs('Updates');
  app.tree.setActive(null);
  // Takes back everything the update changed.
  const refusals = new Map();
  const undo = (update) => (force, button) => undoAsked(app, button, force,
    () => post(`/updates/${encodeURIComponent(update.id)}/undo`, { force }),
    (done) => `Update undone (change ${done.id}).`,
    refusals, update.id, () => view.load());
  const view = {
    async load() {
      const updates = await get('/updates?limit=200');
      if (!updates.length) {
        fill(app.view, h('div', { class: 'empty' }, h('strong', {}, 'No updates yet'), 'Everything sent to Knower (here, from the command line or over HTTP) is listed here with what became of it.'));
        return;
      }
      fill(app.view, h('ul', { class: 'cards', id: 'updates' }, updates.map((update) => {
        const undone = update.undone_by != null;
        const inInbox = !undone && update.state === 'done' && waitsInInbox(update);
        const state = undone ? 'undone' : inInbox ? 'inbox' : update.state;
        return h('li', { class: 'card', 'data-id': update.id, 'data-state': undone ? 'undone' : update.state },
          h('div', { class: 'card-head' },
            h('span', { class: 'grow' }, h('code', {}, update.id), ' · ', when(update.accepted_at), update.attempt > 1 ? ` · attempt ${update.attempt}` : null),
            h('span', { class: 'pill', 'data-state': state }, update.state === 'running' ? h('span', { class: 'spinner' }) : null, inInbox ? 'in the inbox' : state)),
          h('div', { class: 'card-text' }, update.headline),
          update.summary ? h('p', { class: 'muted' }, update.summary) : null,
          undone ? h('p', { class: 'muted' }, `Undone by change #${update.undone_by}: what it changed was taken back.`) : changedFiles(update),
          inInbox ? h('a', { href: `#/inbox/${encodeURIComponent(update.inbox_id)}` }, 'Open in the inbox') : null,
          update.error ? h('p', { class: 'error-text' }, update.error) : null,
          update.state === 'failed' ? h('div', { class: 'card-actions' }, retryButton(app, update.id)) : null,
          update.state === 'done' && !undone && update.changed_files?.length
            ? undoActions(refusals, update.id, undo(update))
            : null);
      })));
    },
    onUpdate() {
      view.load().catch((error) => app.fail(error));
    },
  };
  return view;
}

/// An undo from a list (updates, the journal): done, said and the list
/// reloaded. When the server refuses because lines were edited since, the
/// list keeps the refusal by row (`refusals`) and shows it with an "Undo
/// anyway" (`undoActions`), so that a live reload does not wipe it.
async function undoAsked(app, button, force, request, said, refusals, id, reload) {
  button.disabled = true;
  try {
    const done = await request();
    refusals.delete(id);
    app.notify(said(done));
  } catch (error) {
    button.disabled = false;
    if (error.status !== 409 || force) {
      app.fail(error);
      return;
    }
    refusals.set(id, error.message);
  }
  await reload().catch((error) => app.fail(error));
}

/// A row's undo: the button, or the server's refusal and "Undo anyway".
function undoActions(refusals, id, undo) {
  const refused = refusals.get(id);
  return h('div', { class: 'card-actions' }, refused == null
    ? h('button', { type: 'button', class: 'button undo', onclick: (event) => undo(false, event.currentTarget) }, icon('undo'), 'Undo')
    : [h('p', { class: 'error-text' }, refused),
      h('button', { type: 'button', class: 'button danger', onclick: (event) => undo(true, event.currentTarget) }, 'Undo anyway')]);
}

// ---- the journal --------------------------------------------------------------

const ACTORS = { cli: 'command line', user: 'you', agent: 'agent', external: 'an editor', gardener: 'gardener' };

export function journalView(app) {
  app.setTools(null);
  app.setCrumbs('Journal');
  app.tree.setActive(null);
  let changes = [];
  let more = false;
  const PAGE = 100;

  const refusals = new Map();
  const undo = (change) => (force, button) => undoAsked(app, button, force,
    () => post('/api/undo', { id: change.id, force }),
    (done) => (done ? `Change ${change.id} undone (change ${done.id}).` : `Change ${change.id} had nothing left to undo.`),
    refusals, change.id, () => view.load());

  const row = (change) => h('li', { class: 'card journal-entry', 'data-change': change.id },
    h('div', { class: 'card-head' },
      h('span', { class: 'grow' }, h('b', {}, `#${change.id}`), ' · ', ACTORS[change.actor] ?? change.actor, ' · ', when(change.at)),
      change.undoes != null ? h('span', { class: 'pill' }, `undoes ${[change.undoes].flat().map((id) => `#${id}`).join(', ')}`) : null),
    change.reason ? h('div', { class: 'card-text' }, change.reason) : null,
    h('ul', { class: 'files' }, change.files.map((file) => h('li', {},
      h('span', { class: 'letter', title: { A: 'added', M: 'modified', D: 'deleted' }[file.change] }, file.change),
      file.change === 'D' ? h('span', {}, file.path) : h('a', { href: fileHref(file.path) }, file.path)))),
    undoActions(refusals, change.id, undo(change)));

  const render = () => {
    if (!changes.length) {
      fill(app.view, h('div', { class: 'empty' }, h('strong', {}, 'No changes yet'), 'Every change to the vault is journaled here, and can be undone.'));
      return;
    }
    fill(app.view, h('div', {},
      h('ol', { class: 'cards', id: 'journal' }, changes.map(row)),
      more ? h('div', { class: 'card-actions' }, h('button', {
        type: 'button',
        class: 'button',
        onclick: async () => {
          const older = await get(`/api/log?limit=${PAGE}&before=${changes[changes.length - 1].id}`);
          more = older.length === PAGE;
          changes = changes.concat(older);
          render();
        },
      }, 'Older changes')) : null));
  };

  const view = {
    async load() {
      changes = await get(`/api/log?limit=${PAGE}`);
      more = changes.length === PAGE;
      render();
    },
    onFileChanged() {
      clearTimeout(view.timer);
      view.timer = setTimeout(() => view.load().catch((error) => app.fail(error)), 200);
    },
  };
  return view;
}

// An update waits in the inbox when that was its outcome; one that answered
// an inbox item also names the item (`inbox_id`) but is settled. Records
// from before outcomes were kept have only the id.
function waitsInInbox(update) {
  return Boolean(update.inbox_id) && (update.outcome === 'inbox' || update.outcome == null);
}

// The notes an update changed, each opening the note. Its inbox item is
// linked to the inbox while it waits, and named without a link once settled
// (the folder is gone); other folders are named, not opened as files.
function changedFiles(update) {
  if (!update.changed_files?.length) return null;
  const item = update.inbox_id ? `inbox/${update.inbox_id}` : null;
  return h('ul', { class: 'files', 'aria-label': 'Changed files' }, update.changed_files.map((path) => {
    if (path === item) {
      return h('li', {}, waitsInInbox(update)
        ? h('a', { href: `#/inbox/${encodeURIComponent(update.inbox_id)}` }, `${path}/ (in the inbox)`)
        : h('span', { class: 'muted' }, `${path}/ (answered)`));
    }
    const folder = !path.split('/').pop().includes('.');
    return h('li', {}, folder ? h('span', { class: 'muted' }, `${path}/`) : h('a', { href: fileHref(path) }, path));
  }));
}
