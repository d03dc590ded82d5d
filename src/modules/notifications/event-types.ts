import type { EventType } from '../events/index.js';
import { EVENT_TYPE_LIST } from './event-type-list.js';

/** Every event type a merchant may choose to receive (settings.eventTypes); the compiler keeps it exact. */
export const EVENT_TYPES: typeof EVENT_TYPE_LIST & readonly EventType[] = EVENT_TYPE_LIST;

// Fails to compile when the event catalog gains a type this list does not name.
const complete: Exclude<EventType, (typeof EVENT_TYPES)[number]> extends never ? true : never = true;
void complete;
