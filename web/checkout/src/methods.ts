import { h } from '../../shared/dom.js';

/** One way to pay the page offers: its choice label and the panel shown when it is chosen. */
export interface PaymentMethod {
  id: string;
  label: string;
  element: HTMLElement;
  focus: () => void;
}

/**
 * The payment-method chooser: native radio buttons in a fieldset (arrow keys move between them, screen
 * readers name the group), and below them the chosen method's panel. Only the chosen panel is in the
 * page, so labels never repeat. With a single method there is nothing to choose: just its panel.
 */
export function methodChooser(methods: PaymentMethod[], chosen: string, onChoose: (id: string) => void): HTMLElement {
  const current = methods.find((m) => m.id === chosen) ?? methods[0];
  if (methods.length === 1) return current.element;
  const panel = h('div', { class: 'method-panel' }, current.element);
  const radios = methods.map((method) => {
    const input = h('input', {
      type: 'radio',
      name: 'method',
      id: `method-${method.id}`,
      value: method.id,
      checked: method === current,
    });
    input.addEventListener('change', () => {
      panel.replaceChildren(method.element);
      onChoose(method.id);
    });
    return h('label', { class: 'method', for: input.id }, input, ` ${method.label}`);
  });
  return h('div', {}, h('fieldset', { class: 'methods' }, h('legend', {}, 'Payment method'), ...radios), panel);
}
