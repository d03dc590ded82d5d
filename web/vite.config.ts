import { copyFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * Two builds into web/dist/checkout (served at CHECKOUT_URL): the page (index.html and hashed assets)
 * and embed.js, one stable file merchants load (revalidated, not hashed), with its types as embed.d.ts.
 * `vite build --config web/vite.config.ts` builds the page; `--mode embed` builds embed.js; `--mode panel`
 * builds the control panel into web/dist/panel (served at /panel).
 */
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** A page of our own: index.html and hashed assets, relative so that it works under any path. */
const page = (name: 'checkout' | 'panel') => ({
  root: here(`./${name}`),
  base: './',
  publicDir: false as const,
  build: {
    outDir: here(`./dist/${name}`),
    emptyOutDir: true,
    target: 'es2020',
    // Vite's modulepreload polyfill would be the page's only inline-looking code; not needed.
    modulePreload: { polyfill: false },
    assetsDir: 'assets',
  },
});

export default defineConfig(({ mode }) =>
  mode === 'embed'
    ? {
        publicDir: false,
        build: {
          outDir: here('./dist/checkout'),
          emptyOutDir: false,
          target: 'es2019',
          lib: {
            entry: here('./embed/embed.ts'),
            formats: ['iife'],
            name: 'SvcCheckoutEmbed',
            fileName: () => 'embed.js',
          },
        },
        plugins: [
          {
            name: 'embed-types',
            closeBundle: () => copyFileSync(here('./embed/svc-checkout.d.ts'), here('./dist/checkout/embed.d.ts')),
          },
        ],
      }
    : page(mode === 'panel' ? 'panel' : 'checkout'),
);
