// The Chat view: a conversation that remembers by conclusions. The reply
// streams in as it is written; under each exchange, what it concluded
// (an effort opened or resolved, a fact or an event), which the user can
// correct: resolve or reopen an effort, rename it, forget it.

import { get, post, postStream } from './api.js';
import { h, fill, when } from './dom.js';
import { showMarkdown } from './views.js';

const SESSION_KEY = 'knower-chat-session';

export function chatView(app) {
  app.setCrumbs('Chat');
  app.tree.setActive(null);
  app.root.classList.add('chat-mode');
  let session = localStorage.getItem(SESSION_KEY);
  // "New conversation": nothing to show until the first message.
  let fresh = false;
  let sending = null;

  const newSession = h('button', { type: 'button', class: 'button', id: 'chat-new', onclick: () => {
    session = null;
    fresh = true;
    localStorage.removeItem(SESSION_KEY);
    view.load().catch((error) => app.fail(error));
  } }, 'New conversation');
  app.setTools(newSession);

  const list = h('ol', { class: 'chat-log', id: 'chat-log' });
  const efforts = h('section', { class: 'card chat-efforts', id: 'chat-efforts' });
  const input = h('textarea', { id: 'chat-input', rows: 2, placeholder: 'Talk with Knower… (“remember that …” files it)', 'aria-label': 'Message' });
  const stop = h('button', { type: 'button', class: 'button', id: 'chat-stop', hidden: true, onclick: () => sending?.abort() }, 'Stop');
  const form = h('form', { class: 'chat-form', id: 'chat-form', onsubmit: (event) => { event.preventDefault(); send(); } },
    input, h('button', { type: 'submit', class: 'button primary', id: 'chat-send' }, 'Send'), stop);
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      send();
    }
  });

  const change = (c) => {
    const a = c.artifact;
    const actions = [];
    if (a.kind === 'effort' && a.status === 'open') actions.push(button('Resolve…', () => correct(a, 'resolve')));
    if (a.kind === 'effort' && a.status === 'resolved') actions.push(button('Reopen', () => correct(a, 'reopen')));
    actions.push(button('Edit', () => correct(a, 'edit')), button('Forget', () => forget(a)));
    const label = { created: `new ${a.kind}`, resolved: 'resolved', archived: 'archived' }[c.change] ?? c.change;
    return h('li', { class: 'artifact', 'data-id': a.id, 'data-change': c.change },
      h('span', { class: 'pill', 'data-state': c.change === 'resolved' ? 'done' : 'queued' }, label),
      ' ', h('span', { class: 'artifact-summary' }, a.summary),
      a.resolution ? h('span', { class: 'muted' }, ` — ${a.resolution}`) : null,
      ' ', h('code', { class: 'muted' }, a.id),
      h('span', { class: 'artifact-actions' }, actions));
  };

  const exchange = (x) => {
    const reply = h('div', { class: 'markdown chat-reply' });
    if (x.html) showMarkdown(reply, x.html, '', app.tree.files());
    else reply.textContent = x.assistant ?? '';
    return h('li', { class: 'chat-exchange', 'data-id': x.id ?? '' },
      h('div', { class: 'chat-user' }, x.user),
      reply,
      x.changes?.length ? h('ul', { class: 'artifacts' }, x.changes.map(change)) : null,
      x.update ? h('p', { class: 'muted' }, `Remembered: ${x.update.summary ?? x.update.headline} (${x.update.state})`) : null,
      x.interpretation_error ? h('p', { class: 'error-text' }, x.interpretation_error) : null,
      x.cancelled ? h('p', { class: 'muted' }, '(stopped)') : null,
      context(x));
  };

  // A live exchange carries what its context held; one read back from the
  // log carries only the ids of the memories that were in it.
  const count = (n, one, many) => `${n} ${n === 1 ? one : many}`;
  const context = (x) => {
    const c = x.context;
    if (c && !Array.isArray(c)) {
      return h('p', { class: 'muted small chat-context' },
        [`context ${c.tokens} tokens`, count(c.efforts, 'open effort', 'open efforts'), count(c.artifacts, 'memory', 'memories'),
          count(c.passages, 'passage', 'passages'), count(c.history, 'past exchange', 'past exchanges')].join(' · ')
        + (c.message_cut_tokens ? ` · the message was too long: about ${c.message_cut_tokens} tokens of it were left out` : ''));
    }
    const n = c?.length ?? 0;
    const parts = [x.at ? when(x.at) : null, n ? `${count(n, 'memory', 'memories')} in its context` : null]
      .filter(Boolean);
    // A time is an element, not text: the parts are children between dots.
    return parts.length ? h('p', { class: 'muted small' }, parts.flatMap((part, i) => (i ? [' · ', part] : [part]))) : null;
  };

  const renderEfforts = (artifacts) => {
    const open = artifacts.filter((a) => a.kind === 'effort' && a.status === 'open');
    fill(efforts,
      h('div', { class: 'card-head' }, h('span', { class: 'grow card-title' }, 'Open efforts'), h('span', { class: 'muted' }, String(open.length))),
      open.length
        ? h('ul', { class: 'artifacts' }, open.map((a) => change({ change: 'open', artifact: a })))
        : h('p', { class: 'muted' }, 'Nothing open. A question, or something you set out to do, opens one.'));
  };

  async function send() {
    const message = input.value.trim();
    if (!message || sending) return;
    const card = { user: message, assistant: '' };
    const item = exchange(card);
    list.append(item);
    const reply = item.querySelector('.chat-reply');
    reply.classList.add('streaming');
    input.value = '';
    sending = new AbortController();
    stop.hidden = false;
    try {
      await postStream('/chat', { message, session }, (name, data) => {
        if (name === 'session') {
          session = data.session;
          fresh = false;
          localStorage.setItem(SESSION_KEY, session);
        } else if (name === 'delta') {
          card.assistant += data.text;
          reply.textContent = card.assistant;
          app.view.scrollTop = app.view.scrollHeight;
        } else if (name === 'done') {
          item.replaceWith(exchange(data));
          app.view.scrollTop = app.view.scrollHeight;
          view.refreshEfforts();
        } else if (name === 'error') {
          item.append(h('p', { class: 'error-text' }, data.detail));
          input.value = message;
        }
      }, sending.signal);
    } catch (error) {
      if (error.name !== 'AbortError') {
        app.fail(error);
        input.value = message;
      } else {
        item.append(h('p', { class: 'muted' }, '(stopped)'));
      }
    } finally {
      sending = null;
      stop.hidden = true;
      input.focus();
    }
  }

  async function correct(artifact, how) {
    let body;
    if (how === 'resolve') {
      const resolution = window.prompt('How was it resolved?', '');
      if (resolution === null) return;
      body = { status: 'resolved', resolution };
    } else if (how === 'reopen') {
      body = { status: 'open' };
    } else {
      const summary = window.prompt('Summary', artifact.summary);
      if (summary === null) return;
      body = { summary };
    }
    try {
      const fixed = await post(`/api/chat/artifacts/${encodeURIComponent(artifact.id)}`, body);
      app.notify(`${fixed.kind} ${fixed.id}: ${fixed.status}.`);
      for (const row of app.view.querySelectorAll(`.artifact[data-id="${CSS.escape(artifact.id)}"] .artifact-summary`)) row.textContent = fixed.summary;
      view.refreshEfforts();
    } catch (error) {
      app.fail(error);
    }
  }

  async function forget(artifact) {
    try {
      await post(`/api/chat/artifacts/${encodeURIComponent(artifact.id)}/forget`, {});
      app.notify(`Forgot ${artifact.kind} ${artifact.id} (the Journal can undo it).`);
      for (const row of app.view.querySelectorAll(`.artifact[data-id="${CSS.escape(artifact.id)}"]`)) row.classList.add('forgotten');
      view.refreshEfforts();
    } catch (error) {
      app.fail(error);
    }
  }

  function button(label, action) {
    return h('button', { type: 'button', class: 'button small', onclick: action }, label);
  }

  const view = {
    async load() {
      const query = fresh ? '?limit=0' : session ? `?session=${encodeURIComponent(session)}` : '';
      const overview = await get(`/api/chat${query}`);
      if (!fresh && !session && overview.session) {
        // A first visit continues the last conversation.
        session = overview.session;
        localStorage.setItem(SESSION_KEY, session);
      }
      fill(list, overview.exchanges.map(exchange));
      renderEfforts(overview.artifacts);
      fill(app.view, h('div', { class: 'chat' },
        h('p', { class: 'muted' }, `Knower remembers what conversations concluded, not every word (${overview.engine}).`),
        efforts, list));
      // The message box sits below the conversation, where the composer is
      // in other views: it never covers an exchange, whatever the width.
      app.view.after(form);
      app.view.scrollTop = app.view.scrollHeight;
      input.focus();
    },
    async refreshEfforts() {
      try {
        const overview = await get(`/api/chat?limit=0${session ? `&session=${encodeURIComponent(session)}` : ''}`);
        renderEfforts(overview.artifacts);
      } catch (error) {
        app.fail(error);
      }
    },
    leave() {
      app.root.classList.remove('chat-mode');
      form.remove();
      sending?.abort();
    },
  };
  return view;
}
