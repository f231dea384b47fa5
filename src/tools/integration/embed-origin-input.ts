/** The wire form of the embed-origin setting, shared by the settings tools. */
import { z } from 'zod';

export const EmbedOriginIn = z
  .string()
  .max(1000)
  .nullable()
  .describe(
    'Up to three bare origins (scheme://host[:port], no path) separated by spaces or by commas, e.g. ' +
      '"https://shop.example https://www.shop.example"; https only, http for localhost. null clears the setting.',
  );
