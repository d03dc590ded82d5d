import type { Selectable } from 'kysely';
import type { CardsTable, PaymentsTable } from '../../storage/schema.js';

export type PaymentRow = Selectable<PaymentsTable>;
export type CardRow = Selectable<CardsTable>;
