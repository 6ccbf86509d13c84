// The Garden view: the user's topics with their freshness, the candidate
// facts the gardener found (Approve / Reject), each contradiction with
// both facts and both sources side by side, the figures, and the digest.
// Facts, titles and URLs come from the web: they are only ever set as text,
// and a source's link is kept only when it is http(s).

import { get, post, fileUrl } from './api.js';
import { h, fill, when, fileHref } from './dom.js';
import { showMarkdown } from './views.js';

export function gardenView(app) {
  app.setTools(null);
  app.setCrumbs('Garden');
  app.tree.setActive(null);

  const progress = h('ul', { class: 'garden-progress muted small', id: 'garden-progress', 'aria-live': 'polite' });
  let running = false;

  /// Whether a person is typing in this view (a reason, a new topic):
  /// nothing re-renders it then, or what they type would be wiped.
  const typing = () => {
    const page = app.view.querySelector('.garden');
    return Boolean(page && (page.querySelector('input.reason')
      || (page.contains(document.activeElement) && document.activeElement.matches('input, select'))));
  };

  /// Approves or rejects, from the actions `row` of one item.
  async function decide(kind, ids, reason, row) {
    const buttons = [...row.querySelectorAll('button')];
    for (const button of buttons) button.disabled = true;
    try {
      const report = await post(`/api/garden/${kind}`, kind === 'reject' ? { refs: ids, reason } : { refs: ids });
      const done = kind === 'approve' ? report.approved.length : report.rejected.length;
      app.notify(`${done} fact${done === 1 ? '' : 's'} ${kind === 'approve' ? 'approved' : 'rejected'}.`);
      if (report.refused.length) app.fail(new Error(report.refused.join('; ')));
      // The reason is sent: its field goes, so the reload is not held back.
      fill(row, h('span', { class: 'muted' }, kind === 'approve' ? 'Approved.' : 'Rejected.'));
      await view.load();
    } catch (error) {
      for (const button of buttons) button.disabled = false;
      app.fail(error);
    }
  }

  /// Approve, and Reject behind a reason (the seed keeps why).
  function actions(item) {
    const row = h('div', { class: 'card-actions' });
    const approve = h('button', {
      type: 'button', class: 'button primary', 'data-action': 'approve',
      onclick: () => decide('approve', [item.fact.id], null, row),
    }, item.fact.status === 'disputed' ? replacesLabel(item) : 'Approve');
    const askReason = () => {
      const input = h('input', { type: 'text', class: 'reason', placeholder: 'Why? (kept with the fact)', 'aria-label': 'Reason for rejecting', required: true });
      const confirm = h('button', { type: 'button', class: 'button danger', 'data-action': 'reject-confirm' }, 'Reject');
      const send = () => {
        const reason = input.value.trim();
        if (!reason) { input.focus(); return; }
        decide('reject', [item.fact.id], reason, row);
      };
      confirm.addEventListener('click', send);
      input.addEventListener('keydown', (event) => { if (event.key === 'Enter') send(); if (event.key === 'Escape') fill(row, approve, reject); });
      fill(row, input, confirm, h('button', { type: 'button', class: 'button', onclick: () => fill(row, approve, reject) }, 'Cancel'));
      input.focus();
    };
    const reject = h('button', { type: 'button', class: 'button', 'data-action': 'reject', onclick: askReason }, 'Reject…');
    fill(row, approve, reject);
    return row;
  }

  const topicsCard = (overview) => h('section', { class: 'card', id: 'garden-topics' },
    h('div', { class: 'card-head' },
      h('span', { class: 'grow card-title' }, 'Topics'),
      h('span', { class: 'muted' }, `search: ${overview.search}`)),
    overview.topics.length
      ? h('ul', { class: 'cards' }, overview.topics.map((t) => h('li', { class: 'garden-topic', 'data-slug': t.slug },
        h('div', { class: 'card-head' },
          h('a', { class: 'grow', href: fileHref(`garden/topics/${t.slug}.md`) }, h('b', {}, t.name)),
          h('span', { class: 'pill', title: 'priority (1–5)' }, `priority ${t.priority}`),
          t.stale ? h('span', { class: 'pill', 'data-state': 'queued' }, 'stale') : h('span', { class: 'pill', 'data-state': 'done' }, 'fresh'),
          t.sparse ? h('span', { class: 'pill' }, 'sparse') : null,
          t.disputed ? h('span', { class: 'pill', 'data-state': 'failed' }, `${t.disputed} disputed`) : null),
        h('div', { class: 'muted small' },
          t.last_tended ? ['tended ', when(t.last_tended)] : 'never tended',
          ` · fresh for ${t.freshness_days} days · ${t.confirmed} confirmed, ${t.candidates} candidates, ${t.archived} archived`,
          t.cooling_until ? [' · resting until ', when(t.cooling_until)] : null))))
      : h('p', { class: 'muted' }, 'No topics yet. Add one below: what you want kept fresh, with searches or feeds to read.'),
    (overview.unreadable ?? []).map((bad) => h('p', { class: 'error-text' }, `${bad.path}: ${bad.error} (left untouched)`)),
    (overview.last_errors ?? []).map((error) => h('p', { class: 'error-text garden-error' }, `Last cycle: ${error}`)),
    addForm());

  function addForm() {
    const name = h('input', { type: 'text', name: 'name', placeholder: 'Topic, e.g. Rust async runtimes', 'aria-label': 'Topic name', required: true });
    const priority = h('select', { name: 'priority', 'aria-label': 'Priority' },
      [1, 2, 3, 4, 5].map((p) => h('option', { value: p, selected: p === 3 }, `priority ${p}`)));
    const freshness = h('input', { type: 'number', name: 'freshness', min: 1, value: 7, 'aria-label': 'Fresh for (days)', title: 'days a topic stays fresh' });
    const queries = h('input', { type: 'text', name: 'queries', placeholder: 'searches, separated by ;', 'aria-label': 'Searches' });
    const feeds = h('input', { type: 'text', name: 'feeds', placeholder: 'feed URLs, separated by spaces', 'aria-label': 'Feeds' });
    const list = (text, separator) => text.split(separator).map((s) => s.trim()).filter(Boolean);
    const form = h('form', { class: 'garden-add', id: 'garden-add' },
      name, priority, freshness, queries, feeds,
      h('button', { type: 'submit', class: 'button primary' }, 'Add topic'));
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      if (!name.value.trim()) { name.focus(); return; }
      try {
        const topic = await post('/api/garden/topics', {
          name: name.value,
          priority: Number(priority.value),
          freshness_days: Number(freshness.value) || 7,
          queries: list(queries.value, ';'),
          feeds: list(feeds.value, /\s+/),
        });
        app.notify(`Added the topic “${topic.name}”.`);
        // Done with the form: emptied and left, so the reload shows the topic.
        form.reset();
        if (form.contains(document.activeElement)) document.activeElement.blur();
        await view.load();
      } catch (error) {
        app.fail(error);
      }
    });
    return form;
  }

  const sourceBlock = (source) => source
    ? h('div', { class: 'garden-source muted small' },
      safeLink(source.url, source.title || source.url),
      ` · ${source.credibility} credibility · fetched `, when(source.fetched_at), ' · ',
      h('a', { href: fileHref(`garden/sources/${source.slug}.md`) }, 'saved text'))
    : h('div', { class: 'garden-source muted small' }, 'no source recorded');

  const factBlock = (fact, source, label) => h('div', { class: 'garden-fact', 'data-id': fact.id },
    h('div', { class: 'muted small' }, label, ' · ', h('code', {}, fact.id), ` · confidence ${Number(fact.confidence).toFixed(2)}`,
      fact.found ? ` · found ${fact.found}` : null),
    h('p', { class: 'statement' }, fact.statement),
    sourceBlock(source));

  const reviewCard = (review) => {
    const disputed = review.items.filter((i) => i.fact.status === 'disputed');
    const candidates = review.items.filter((i) => i.fact.status !== 'disputed');
    return h('section', { class: 'card', id: 'garden-review' },
      h('div', { class: 'card-head' },
        h('span', { class: 'grow card-title' }, 'To review'),
        h('span', { class: 'muted' }, `${review.items.length} waiting`)),
      review.pending_decisions ? h('p', { class: 'muted' }, `${review.pending_decisions} decision(s) in the inbox files are not applied yet.`) : null,
      review.items.length ? null : h('p', { class: 'muted' }, 'Nothing waits for you. New candidates appear here after a cycle.'),
      disputed.length ? h('h3', {}, 'Contradictions') : null,
      h('ul', { class: 'cards' }, disputed.map((item) => h('li', { class: 'garden-item contradiction', 'data-id': item.fact.id },
        h('div', { class: 'muted small' }, item.topic_name),
        h('div', { class: 'side-by-side' },
          factBlock(item.fact, item.source, 'new'),
          item.contradicts.map(([other, source]) => factBlock(other, source, other.status))),
        actions(item)))),
      review.alerts.length ? h('h3', {}, 'Alerts') : null,
      review.alerts.length ? h('ul', { class: 'garden-alerts muted small', id: 'garden-alerts' }, review.alerts.map((a) => h('li', {}, a))) : null,
      candidates.length ? h('h3', {}, 'Candidates') : null,
      h('ul', { class: 'cards' }, candidates.map((item) => h('li', { class: 'garden-item', 'data-id': item.fact.id },
        h('div', { class: 'muted small' }, item.topic_name),
        factBlock(item.fact, item.source, 'candidate'),
        actions(item)))));
  };

  const statsCard = (stats) => h('section', { class: 'card', id: 'garden-stats' },
    h('div', { class: 'card-head' }, h('span', { class: 'grow card-title' }, 'Figures')),
    h('dl', { class: 'figures' },
      h('dt', {}, 'Coverage'), h('dd', {}, `${stats.coverage.confirmed} confirmed facts (${stats.coverage.confirmed_per_topic} a topic), ${stats.coverage.sparse_topics} sparse topic(s)`),
      h('dt', {}, 'Freshness'), h('dd', {}, `${stats.freshness.fresh_topics} fresh, ${stats.freshness.stale_topics} stale`),
      h('dt', {}, 'Accuracy'), h('dd', {}, `${stats.accuracy.approved} approved, ${stats.accuracy.rejected} rejected` + (stats.accuracy.approval_rate == null ? '' : ` (${Math.round(stats.accuracy.approval_rate * 100)}% approved)`)),
      h('dt', {}, 'Efficiency'), h('dd', {}, `${stats.efficiency.cycles} cycles, ${stats.efficiency.searches} searches, ${stats.efficiency.fetches} fetches, ${stats.efficiency.confirmed_from_web} confirmed from the web`),
      h('dt', {}, 'Engagement'), h('dd', {}, `reviews on ${stats.engagement.review_days_last_30} of the last 30 days`)));

  const digestCard = async (path) => {
    if (!path) return null;
    const body = h('div', { class: 'markdown' });
    const file = await get(fileUrl(path));
    showMarkdown(body, file.html, path, app.tree.files());
    return h('section', { class: 'card', id: 'garden-digest' },
      h('div', { class: 'card-head' }, h('a', { class: 'grow card-title', href: fileHref(path) }, 'Digest')),
      body);
  };

  async function runNow(button, dryRun) {
    if (running) return;
    running = true;
    button.disabled = true;
    fill(progress);
    try {
      const result = await post('/api/garden/run', { dry_run: dryRun });
      if (dryRun) {
        const plan = result.plan;
        fill(progress, plan.topics.length ? null : h('li', {}, 'No topic needs tending now.'),
          plan.topics.map((work) => h('li', {}, `${work.topic}: would search ${work.searches.map((q) => `“${q}”`).join(', ') || 'nothing'}`,
            work.feeds.length ? `, read ${work.feeds.length} feed(s)` : '', `, fetch up to ${work.result_fetches} result(s)`)),
          plan.skipped.map((s) => h('li', {}, `not now: ${s}`)));
      } else {
        const cycle = result.cycle;
        const added = cycle.tended.reduce((n, t) => n + t.added.length, 0);
        app.notify(`The cycle made ${cycle.searches.length} search(es) and ${cycle.fetches.length} fetch(es), and found ${added} new candidate(s).`);
        await view.load();
      }
    } catch (error) {
      app.fail(error);
    } finally {
      running = false;
      button.disabled = false;
    }
  }

  const view = {
    async load() {
      const overview = await get('/api/garden');
      const run = h('button', { type: 'button', class: 'button primary', id: 'garden-run', onclick: (e) => runNow(e.currentTarget, false) }, 'Run a cycle now');
      const dry = h('button', { type: 'button', class: 'button', id: 'garden-dry-run', onclick: (e) => runNow(e.currentTarget, true) }, 'What would it do?');
      const next = overview.interrupted
        ? `The cycle of ${overview.interrupted} was interrupted; it resumes with the next run.`
        : overview.next_wake ? ['Next scheduled cycle ', when(overview.next_wake), '.'] : 'No cycle has run yet.';
      const page = h('div', { class: 'garden' },
        h('p', { class: 'muted' }, 'The gardener keeps your topics fresh from the web, as candidate facts for you to approve. ', next),
        h('div', { class: 'card-actions' }, run, dry),
        progress,
        reviewCard(overview.review),
        topicsCard(overview),
        statsCard(overview.stats),
        await digestCard(overview.digest));
      // A load that answers after the person began typing (a reason asked
      // for meanwhile) waits for them rather than wiping the field.
      if (typing()) {
        view.reloadSoon();
        return;
      }
      fill(app.view, page);
    },
    onGarden(name, data) {
      if (name === 'garden_progress') {
        const line = describe(data);
        if (line) progress.append(h('li', {}, line));
      } else if (name === 'garden_error' && !data.topic) {
        // A topic's failed search, feed or page is already a progress line.
        progress.append(h('li', { class: 'error-text' }, data.error));
      } else if (name === 'garden_cycle' && !running) {
        view.load().catch((error) => app.fail(error));
      }
    },
    onFileChanged(path) {
      if (!path.startsWith('garden/') || running) return;
      view.reloadSoon();
    },
    /// Reloads once the files settle, but not under a person who is
    /// typing (a reason, a new topic): that waits until they are done.
    reloadSoon() {
      clearTimeout(view.timer);
      view.timer = setTimeout(() => {
        if (typing()) view.reloadSoon();
        else view.load().catch((error) => app.fail(error));
      }, 300);
    },
  };
  return view;
}

/// "Approve (replaces …)" naming the facts approving archives, however
/// many the disputed fact contradicts.
function replacesLabel(item) {
  const others = (item.contradicts ?? []).map(([fact]) => fact);
  if (!others.length) return 'Approve';
  const short = (text) => (text.length > 48 ? `${text.slice(0, 47)}…` : text);
  const named = others.length === 1
    ? `“${short(others[0].statement)}”`
    : `${others.length} facts: ${others.map((f) => `“${short(f.statement)}”`).join(', ')}`;
  return `Approve (replaces ${named})`;
}

/// A `garden_progress` event as a line for people.
function describe(p) {
  switch (p.kind) {
    case 'searched': return p.error ? `${p.topic}: the search “${p.query}” failed: ${p.error}` : `${p.topic}: searched “${p.query}” (${p.hits} results)`;
    case 'fetched': return p.error ? `${p.topic}: could not read ${p.url}: ${p.error}` : `${p.topic}: read ${p.url}`;
    case 'feed_read': return p.error ? `${p.topic}: could not read the feed ${p.url}: ${p.error}` : `${p.topic}: read the feed ${p.url} (${p.entries} links)`;
    case 'candidates': return `${p.topic}: ${p.added.length} new candidate(s), ${p.disputed.length} contradicting`;
    default: return null;
  }
}

/// A link only for http(s) URLs; anything else (javascript:, data:) is text.
function safeLink(url, text) {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') {
      return h('a', { href: parsed.href, target: '_blank', rel: 'noopener noreferrer' }, text);
    }
  } catch {
    // not a URL: shown as text below
  }
  return h('span', {}, text);
}
