/* global document */
// Entry of the UI bench page (test/bench/ui.bench.ts builds it with Vite): the app's own
// components, no app shell, driven through window.__bench from the #/bench route.
import { mount } from 'svelte';
import BenchPage from './BenchPage.svelte';
import '../../../src-renderer/src/styles.css';

mount(BenchPage, { target: document.body });
