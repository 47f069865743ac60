import { EmailChangeRequest } from './email-change-request';
import { EmailMessage } from './email-message';
import { PersonalAccessToken } from './personal-access-token';
import { RefreshToken } from './refresh-token';
import { SellerAccount } from './seller-account';
import { User } from './user';

export { EmailChangeRequest, EmailMessage, PersonalAccessToken, RefreshToken, SellerAccount, User };

export const entities = [User, RefreshToken, PersonalAccessToken, SellerAccount, EmailChangeRequest, EmailMessage];
