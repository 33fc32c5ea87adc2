// What the executor's options cannot say: one IIFE (a classic script on the business's page, no
// global of its own; `format` takes esm or cjs only) for today's browsers (`target` takes one string).
module.exports = {
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [
    {
      name: 'classic-script',
      setup(build) {
        build.initialOptions.format = 'iife';
        build.initialOptions.target = ['chrome100', 'firefox100', 'safari15'];
      },
    },
  ],
};
