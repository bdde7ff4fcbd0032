import { h } from './dom.js';

/**
 * Asks a yes/no question in a modal `<dialog>` (focus moves into it, Escape cancels) and answers
 * `true` when the user confirms.
 */
export function confirmDialog(question: string, detail: string, confirmLabel: string): Promise<boolean> {
  return new Promise((resolve) => {
    const titleId = 'confirm-title';
    const cancel = h('button', { type: 'button', class: 'button secondary', onclick: () => dialog.close('cancel') }, 'Cancel');
    const dialog = h(
      'dialog',
      { class: 'dialog', 'aria-labelledby': titleId },
      h('h2', { id: titleId }, question),
      h('p', {}, detail),
      h('div', { class: 'actions' }, cancel, h('button', { type: 'button', class: 'button danger', onclick: () => dialog.close('confirm') }, confirmLabel)),
    );
    dialog.addEventListener('close', () => {
      dialog.remove();
      resolve(dialog.returnValue === 'confirm');
    });
    document.body.append(dialog);
    dialog.showModal();
    cancel.focus();
  });
}
