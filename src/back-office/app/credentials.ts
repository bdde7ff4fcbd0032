import type { Api } from './api.js';
import { h } from './dom.js';
import type { BackOfficeMetadata } from './metadata.js';

/**
 * The dialog where the user enters the credential of guarded routes, once per browser tab: an API
 * key or a bearer token, sent in the configured header. `changed` runs after Save or Forget.
 */
export function credentialsDialog(auth: BackOfficeMetadata['auth'], api: Api, changed: () => void): () => void {
  const { header, scheme } = auth;
  const label = scheme ? `${scheme} token` : `Value of the ${header} header`;
  return () => {
    const input = h('input', { id: 'credential', type: 'password', autocomplete: 'off', value: api.credential, 'aria-describedby': 'credential-hint' });
    const dialog = h(
      'dialog',
      { class: 'dialog', 'aria-labelledby': 'credentials-title' },
      h(
        'form',
        { method: 'dialog' },
        h('h2', { id: 'credentials-title' }, 'Credentials'),
        h('div', { class: 'field' }, h('label', { for: 'credential' }, label), input),
        h('p', { id: 'credential-hint', class: 'hint' }, `Sent in the ${header} header of every request, kept until this tab closes.`),
        h(
          'div',
          { class: 'actions' },
          h('button', { type: 'submit', value: 'cancel', class: 'button secondary', formnovalidate: true }, 'Cancel'),
          h('button', { type: 'submit', value: 'forget', class: 'button secondary' }, 'Forget'),
          h('button', { type: 'submit', value: 'save', class: 'button primary' }, 'Save'),
        ),
      ),
    );
    dialog.addEventListener('close', () => {
      if (dialog.returnValue === 'save') api.credential = input.value.trim();
      if (dialog.returnValue === 'forget') api.credential = '';
      dialog.remove();
      if (dialog.returnValue === 'save' || dialog.returnValue === 'forget') changed();
    });
    document.body.append(dialog);
    dialog.showModal();
    input.focus();
  };
}
