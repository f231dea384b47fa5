/** `npm start`: the server (same as `tessera serve`). */
import './cli.ts';
