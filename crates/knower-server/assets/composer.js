// The input at the bottom: three modes. `update` sends text and files to be
// filed; `search` asks the vault; `answer` replies to an inbox item (an
// update carrying `inbox_ref`). Enter sends, Shift+Enter is a new line; the
// text is only cleared once the server has accepted it.

import { post } from './api.js';
import { h, fill, icon, bytes } from './dom.js';

const PLACEHOLDERS = {
  update: 'Tell Knower something to remember…',
  search: 'Ask the vault a question…',
  answer: 'Your answer: an option number, a path, or "discard"…',
};

export class Composer {
  constructor(app) {
    this.app = app;
    this.form = document.getElementById('composer');
    this.input = document.getElementById('input');
    this.send = document.getElementById('send');
    this.deep = document.getElementById('deep');
    this.picker = document.getElementById('files');
    this.list = document.getElementById('attachments');
    this.chip = document.getElementById('reply-chip');
    this.mode = 'update';
    this.files = [];
    this.replyingTo = null;
    this.busy = false;

    for (const button of this.form.querySelectorAll('.modes button')) {
      button.addEventListener('click', () => this.setMode(button.dataset.mode));
    }
    document.getElementById('reply-cancel').addEventListener('click', () => this.stopReplying());
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.submit();
    });
    this.input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.submit();
      } else if (event.key === 'Escape') {
        if (this.mode === 'answer') this.stopReplying();
        else this.input.blur();
      }
    });
    this.input.addEventListener('input', () => this.refresh());
    this.picker.addEventListener('change', () => {
      this.attach([...this.picker.files]);
      this.picker.value = '';
    });
    // Files dropped on the input, or images pasted into it, are attached.
    this.form.addEventListener('dragover', (event) => event.preventDefault());
    this.form.addEventListener('drop', (event) => {
      event.preventDefault();
      this.attach([...(event.dataTransfer?.files ?? [])]);
    });
    this.input.addEventListener('paste', (event) => {
      const files = [...(event.clipboardData?.files ?? [])];
      if (files.length) {
        event.preventDefault();
        this.attach(files);
      }
    });
    this.refresh();
  }

  setMode(mode) {
    if (mode !== 'answer') this.replyingTo = null;
    this.mode = mode;
    this.form.dataset.mode = mode;
    for (const button of this.form.querySelectorAll('.modes button')) {
      button.setAttribute('aria-checked', String(button.dataset.mode === mode));
    }
    this.chip.hidden = mode !== 'answer';
    this.input.placeholder = PLACEHOLDERS[mode];
    this.refresh();
  }

  focusSearch() {
    if (this.mode !== 'answer') this.setMode('search');
    this.input.focus();
  }

  replyTo(item, text) {
    this.setMode('answer');
    this.replyingTo = item.id;
    document.getElementById('reply-title').textContent = item.title;
    if (text !== undefined) this.input.value = text;
    this.refresh();
    this.input.focus();
  }

  stopReplying() {
    this.setMode('update');
  }

  attach(files) {
    if (this.mode === 'search') this.setMode('update');
    this.files.push(...files);
    this.refresh();
  }

  refresh() {
    // The textarea grows with its text, up to the CSS max-height.
    this.input.style.height = 'auto';
    this.input.style.height = `${this.input.scrollHeight}px`;
    const empty = !this.input.value.trim() && !(this.mode !== 'search' && this.files.length);
    this.send.disabled = this.busy || empty;
    fill(this.list, this.mode === 'search' ? [] : this.files.map((file, i) => h('li', {},
      h('span', {}, file.name), h('span', { class: 'muted' }, bytes(file.size)),
      h('button', {
        type: 'button',
        class: 'icon-button',
        'aria-label': `Remove ${file.name}`,
        onclick: () => {
          this.files.splice(i, 1);
          this.refresh();
        },
      }, icon('close')))));
  }

  async submit() {
    const text = this.input.value.trim();
    if (this.busy || (!text && !this.files.length)) return;
    this.busy = true;
    this.refresh();
    try {
      if (this.mode === 'search') await this.ask(text);
      else await this.update(text);
      this.input.value = '';
      this.files = [];
    } catch (error) {
      // Nothing is lost: the text and files stay in the input.
      this.app.fail(error);
    } finally {
      this.busy = false;
      this.refresh();
    }
  }

  async update(text) {
    const inboxRef = this.mode === 'answer' ? this.replyingTo : null;
    let body;
    if (this.files.length) {
      body = new FormData();
      body.append('text', text);
      if (inboxRef) body.append('inbox_ref', inboxRef);
      for (const file of this.files) body.append('file', file, file.name);
    } else {
      body = { text };
      if (inboxRef) body.inbox_ref = inboxRef;
    }
    const accepted = await post('/update', body);
    this.app.activity.add({
      kind: 'update',
      id: accepted.id,
      text,
      files: this.files.map((file) => file.name),
      inbox_ref: inboxRef,
      state: 'queued',
    });
    if (inboxRef) {
      this.stopReplying();
      this.app.notify('Reply sent. The item leaves the inbox once it is filed.');
      this.app.go('#/inbox');
    } else {
      this.app.go('#/activity');
    }
  }

  async ask(question) {
    const card = this.app.activity.add({ kind: 'search', text: question, pending: true });
    this.input.value = '';
    this.app.go('#/activity');
    try {
      const answer = await post('/search', { query: question, mode: this.deep.checked ? 'deep' : 'fast' });
      this.app.activity.change(card, { pending: false, answer });
    } catch (error) {
      this.app.activity.change(card, { pending: false, error: error.message });
    }
  }
}
