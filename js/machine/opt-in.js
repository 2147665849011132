// Turns the machine lock space on for this process, and for every process it starts (the
// environment is inherited), before the polyfill installs: WEBLOCKS_MACHINE_SPACE names the
// lock space ('default' unless already set).
import { DEFAULT_SPACE, checkSpaceName } from './place.js';

process.env.WEBLOCKS_MACHINE_SPACE = checkSpaceName(process.env.WEBLOCKS_MACHINE_SPACE || DEFAULT_SPACE);
