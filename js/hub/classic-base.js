// The classic hub bundle finds its wasm files next to its own script.
import { setAssetBase } from '../engine/assets.js';

setAssetBase(self.location.href);
