import './tracing';
import { runApp } from '@svc/platform';
import { app } from './app';

void runApp(app);
