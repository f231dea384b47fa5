/** Every entity the ORM knows, listed explicitly. */
import { AcpCheckoutSession, AcpVaultToken } from './acp.ts';
import { ApiKey } from './api-key.ts';
import { CardSetup, Instrument, OutboxMail, Permission } from './buyer-authority.ts';
import { Agent, Buyer, SignInLink, VerificationChallenge } from './buyer.ts';
import { Event, Pool, Shop, Tier } from './catalog.ts';
import { DiscountCode } from './discount.ts';
import { Organization } from './organization.ts';
import { Order, Payment, Quote, Refund, Reservation, Ticket } from './purchase.ts';
import { Membership, User } from './user.ts';
import { WebhookDelivery, WebhookSubscription } from './webhook.ts';

export const ENTITIES = [
  Organization,
  User,
  Membership,
  ApiKey,
  Shop,
  Event,
  Pool,
  Tier,
  WebhookSubscription,
  WebhookDelivery,
  Quote,
  Reservation,
  Payment,
  Order,
  Ticket,
  Buyer,
  SignInLink,
  VerificationChallenge,
  Agent,
  CardSetup,
  Instrument,
  Permission,
  OutboxMail,
  AcpCheckoutSession,
  AcpVaultToken,
  Refund,
  DiscountCode,
] as const;
