import { setFlagsFromString } from 'node:v8';

// Imported first by main.ts, before the app allocates anything. With V8's allocation-site
// pretenuring, about one gateway process in seven (one in three in some benchmark runs) settles
// into a mode where a per-request allocation site is tenured: its dead objects stay in old space
// until a full GC and keep each request's young objects alive through scavenges (a quarter of what
// a request allocates survives and is promoted, against 0.4%), so the process answers about 35%
// fewer calls for its life. Without pretenuring none of 60 processes did; the fast ones are as
// fast (bench/README.md, "Gateway").
setFlagsFromString('--no-allocation-site-pretenuring');
