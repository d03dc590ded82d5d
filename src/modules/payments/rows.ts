import type { Selectable } from 'kysely';
import type { CardsTable, PaymentsTable } from './tables.js';

export type PaymentRow = Selectable<PaymentsTable>;
export type CardRow = Selectable<CardsTable>;
