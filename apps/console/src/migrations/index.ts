import { CreateMembers1764100000000 } from './1764100000000-CreateMembers';
import { MemberRoles1764200000000 } from './1764200000000-MemberRoles';
import { People1764300000000 } from './1764300000000-People';

/** Schema `console`: people, their memberships and roles, sessions, set-password links, sign-in counters. Owned by the console. */
export const CONSOLE_SCHEMA = 'console';
export const CONSOLE_MIGRATIONS = [CreateMembers1764100000000, MemberRoles1764200000000, People1764300000000];
