import Joi from 'joi';

/** Shared field schemas, so one rule (e.g. what a username is) is written once. */
export const email = Joi.string().trim().email({ tlds: false }).max(254);
export const username = Joi.string()
  .pattern(/^[A-Za-z0-9][A-Za-z0-9_.-]{2,31}$/)
  .message('"username" must be 3-32 characters: letters, digits, "_", "." or "-", starting with a letter or digit');
export const password = Joi.string().min(10).max(256);
export const timestamp = Joi.date().iso();

export const userView = Joi.object({
  id: Joi.string().required(),
  email: Joi.string().required(),
  username: Joi.string().required(),
  createdAt: timestamp.required(),
});
