import { runCli } from './cli';
import { withDevelopmentSettings } from './dev-settings';

void runCli(
  process.argv.slice(2),
  { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) },
  withDevelopmentSettings(process.env),
).then((code) => {
  process.exitCode = code;
});
