// The Knowledge view: what the harvest keeps in knowledge/ — the five
// category files, the digest every agent loads (with its size against the
// 4 KB bound, and "Delete to turn off"), and the ledger of conversations.

import { get, post, fileUrl } from './api.js';
import { h, fill, when, fileHref, bytes } from './dom.js';
import { showMarkdown } from './views.js';

const NAMES = {
  'knowledge/facts.md': 'Facts',
  'knowledge/decisions.md': 'Decisions',
  'knowledge/questions.md': 'Open questions',
  'knowledge/playbooks.md': 'Playbooks',
  'knowledge/tasks.md': 'Tasks',
};

export function knowledgeView(app) {
  app.setTools(null);
  app.setCrumbs('Knowledge');
  app.tree.setActive(null);

  const digestCard = async (digest) => {
    if (!digest.exists) {
      return h('section', { class: 'card', id: 'digest', 'data-state': 'off' },
        h('div', { class: 'card-head' }, h('span', { class: 'grow card-title' }, 'Digest'), h('span', { class: 'pill' }, 'off')),
        h('p', {}, 'There is no digest: no knowledge block reaches the agents. ',
          h('code', {}, 'knower harvest --apply'), ' makes one from the category files.'));
    }
    const body = h('div', { class: 'markdown' });
    const file = await get(fileUrl(digest.path));
    showMarkdown(body, file.html, digest.path, app.tree.files());
    const actions = h('div', { class: 'card-actions' });
    const confirm = () => fill(actions,
      h('span', { class: 'muted' }, 'The agents will no longer get it, until the next harvest.'),
      h('button', { type: 'button', class: 'button danger', id: 'digest-delete-confirm', onclick: remove }, 'Delete the digest'),
      h('button', { type: 'button', class: 'button', onclick: () => fill(actions, offer()) }, 'Keep it'));
    const offer = () => h('button', { type: 'button', class: 'button danger', id: 'digest-delete', onclick: confirm }, 'Delete to turn off');
    async function remove(event) {
      event.currentTarget.disabled = true;
      try {
        await post('/api/knowledge/digest/delete', {});
        app.notify('The digest is deleted: the agents no longer get a knowledge block.');
        await view.load();
      } catch (error) {
        app.fail(error);
      }
    }
    fill(actions, offer());
    return h('section', { class: 'card', id: 'digest', 'data-state': 'on' },
      h('div', { class: 'card-head' },
        h('span', { class: 'grow card-title' }, 'Digest'),
        h('span', { class: 'pill', 'data-state': 'done', id: 'digest-size' }, `${bytes(digest.bytes)} of ${bytes(digest.max_bytes)}`)),
      h('p', { class: 'muted' }, 'Loaded by every agent as the knowledge they start from. It is made from the category files: edit those, not this.'),
      body,
      actions);
  };

  const files = (list) => h('section', { class: 'card', id: 'knowledge-files' },
    h('div', { class: 'card-head' }, h('span', { class: 'grow card-title' }, 'Category files')),
    h('ul', { class: 'files' }, list.map((file) => h('li', {},
      file.exists
        ? h('a', { href: fileHref(file.path) }, NAMES[file.path] ?? file.path)
        : h('span', { class: 'muted' }, NAMES[file.path] ?? file.path),
      h('span', { class: 'muted' }, file.exists ? ` · ${file.items} items · ${bytes(file.bytes)}` : ' · none yet')))));

  const ledger = (entries, problem) => h('section', { class: 'card', id: 'ledger' },
    h('div', { class: 'card-head' }, h('span', { class: 'grow card-title' }, 'Ledger'), h('span', { class: 'muted' }, `${entries.length} conversations`)),
    problem ? h('p', { class: 'error-text' }, problem) : null,
    entries.length
      ? h('ul', { class: 'cards' }, entries.map(([sha, entry]) => h('li', { class: 'ledger-entry', 'data-status': entry.status },
        h('div', { class: 'card-head' },
          h('span', { class: 'grow' }, h('b', {}, entry.name || entry.path), ' · ', when(entry.at)),
          h('span', { class: 'pill', 'data-state': entry.status === 'harvested' ? 'done' : entry.status === 'harvest-failed' ? 'failed' : 'queued' }, entry.status),
          entry.deleted ? h('span', { class: 'pill' }, 'source deleted') : null),
        h('div', { class: 'muted small' }, entry.path),
        entry.status === 'harvested' ? h('div', { class: 'muted small' }, counts(entry.items)) : null,
        entry.error ? h('p', { class: 'error-text' }, entry.error) : null,
        h('div', { class: 'muted small', title: 'sha256 of the conversation' }, h('code', {}, sha.slice(0, 16))))))
      : h('p', { class: 'muted' }, 'No conversation harvested yet.'));

  const view = {
    async load() {
      const overview = await get('/api/knowledge');
      fill(app.view, h('div', { class: 'knowledge' },
        h('p', { class: 'muted' }, 'What the harvest kept from past conversations (', h('code', {}, 'knower harvest'), ').'),
        await digestCard(overview.digest),
        files(overview.files),
        ledger(overview.ledger, overview.ledger_problem)));
    },
    onFileChanged(path) {
      if (!path.startsWith('knowledge/')) return;
      clearTimeout(view.timer);
      view.timer = setTimeout(() => view.load().catch((error) => app.fail(error)), 150);
    },
  };
  return view;
}

function counts(items) {
  const parts = [
    ['facts', items.facts], ['decisions', items.decisions], ['open tasks', items.tasks_open],
    ['done tasks', items.tasks_done], ['questions', items.questions], ['playbooks', items.playbooks],
    ['file notes', items.files],
  ].filter(([, n]) => n > 0).map(([name, n]) => `${n} ${name}`);
  return parts.length ? parts.join(', ') : 'nothing durable';
}
