// Imported first by main.ts: tracing must instrument the modules the app loads after it (off unless OTEL_* ask for it).
import { startTracing } from '@svc/tracing';

startTracing('console');
