import { CreateMembers1764100000000 } from './1764100000000-CreateMembers';
import { MemberRoles1764200000000 } from './1764200000000-MemberRoles';

/** Schema `console`: team members and their roles, sessions, set-password links, sign-in counters. Owned by the console. */
export const CONSOLE_SCHEMA = 'console';
export const CONSOLE_MIGRATIONS = [CreateMembers1764100000000, MemberRoles1764200000000];
