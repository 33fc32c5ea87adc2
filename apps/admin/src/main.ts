import { runCli } from './cli';

void runCli(process.argv.slice(2), { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) }).then((code) => {
  process.exitCode = code;
});
