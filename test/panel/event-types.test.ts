import { expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/modules/notifications/event-types.js';
import { EVENT_TYPES as PANEL_EVENT_TYPES } from '../../web/panel/src/event-types.js';

// The panel's settings page offers its own copy of the list (it is built without the server's sources).
it('the panel offers exactly the event types the settings API accepts', () => {
  expect([...PANEL_EVENT_TYPES].sort()).toEqual([...EVENT_TYPES].sort());
});
