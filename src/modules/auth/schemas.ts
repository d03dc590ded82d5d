import { Type } from '@sinclair/typebox';

const NewPassword = (description: string) =>
  Type.String({ minLength: 1, maxLength: 1024, description: `${description} (12 characters or more)` });

export const PasswordResetRequest = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 254, description: "The user's e-mail address" }),
});

export const PasswordResetRequested = Type.Object({
  message: Type.String({ description: 'The same whether or not a user has the address' }),
});

export const PasswordResetConfirm = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 256, description: "The token of the e-mail's link" }),
  password: NewPassword('The new password'),
});

export const PasswordReset = Type.Object({ passwordReset: Type.Literal(true) });

export const PasswordChange = Type.Object({
  currentPassword: Type.String({ minLength: 1, maxLength: 1024 }),
  newPassword: NewPassword('The new password'),
});

export const PasswordChanged = Type.Object({ passwordChanged: Type.Literal(true) });
