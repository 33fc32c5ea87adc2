import { CreateMembers1764100000000 } from './1764100000000-CreateMembers';

/** Schema `console`: team members, sessions, set-password links, failed sign-ins. Owned by the console. */
export const CONSOLE_SCHEMA = 'console';
export const CONSOLE_MIGRATIONS = [CreateMembers1764100000000];
