/** The registry: every tool the service offers, listed explicitly. Surfaces are generated from this list. */
import type { AnyTool } from '../orchestrator/tool.ts';
import { cancelCheckoutSession } from './acp/cancel-checkout-session.ts';
import { completeCheckoutSession } from './acp/complete-checkout-session.ts';
import { createCheckoutSession } from './acp/create-checkout-session.ts';
import { delegatePayment } from './acp/delegate-payment.ts';
import { getAcpDiscovery } from './acp/get-acp-discovery.ts';
import { getCheckoutSession } from './acp/get-checkout-session.ts';
import { updateCheckoutSession } from './acp/update-checkout-session.ts';
import { cancelCheckout } from './ucp/cancel-checkout.ts';
import { completeCheckout } from './ucp/complete-checkout.ts';
import { createCheckout } from './ucp/create-checkout.ts';
import { getCheckout } from './ucp/get-checkout.ts';
import { getUcpOrderTool } from './ucp/get-order.ts';
import { updateCheckout } from './ucp/update-checkout.ts';
import { lookupCatalog } from './ucp/lookup-catalog.ts';
import { searchCatalog } from './ucp/search-catalog.ts';
import { changeAgentCardTool } from './buyer/change-agent-card.ts';
import { completeCardSetupTool } from './buyer/complete-card-setup.ts';
import { completeSignInTool } from './buyer/complete-sign-in.ts';
import { createAgentTool } from './buyer/create-agent.ts';
import { deleteAgent } from './buyer/delete-agent.ts';
import { discardCardSetupTool } from './buyer/discard-card-setup.ts';
import { getBuyerSession } from './buyer/get-buyer-session.ts';
import { endBuyerSession } from './buyer/end-buyer-session.ts';
import { grantPermissionTool } from './buyer/grant-permission.ts';
import { listAgentsTool } from './buyer/list-agents.ts';
import { listInstrumentsTool } from './buyer/list-instruments.ts';
import { listMyTicketsTool } from './buyer/list-my-tickets.ts';
import { listPermissionsTool } from './buyer/list-permissions.ts';
import { lowerCardCapTool } from './buyer/lower-card-cap.ts';
import { pauseAgent } from './buyer/pause-agent.ts';
import { raiseCardCapTool } from './buyer/raise-card-cap.ts';
import { requestSignInLinkTool } from './buyer/request-sign-in-link.ts';
import { requestVerificationCode } from './buyer/request-verification-code.ts';
import { resumeAgent } from './buyer/resume-agent.ts';
import { revokePermission } from './buyer/revoke-permission.ts';
import { saveCardTool } from './buyer/save-card.ts';
import { setBuyerLanguageTool } from './buyer/set-buyer-language.ts';
import { startCardSetupTool } from './buyer/start-card-setup.ts';
import { createApiKey } from './console/create-api-key.ts';
import { getAttestedConsent } from './console/get-attested-consent.ts';
import { listApiKeys } from './console/list-api-keys.ts';
import { revokeApiKey } from './console/revoke-api-key.ts';
import { setOrganizationAttestation } from './console/set-organization-attestation.ts';
import { withdrawAttestedPermissionTool } from './console/withdraw-attested-permission.ts';
import { mintBuyerSession } from './integration/mint-buyer-session.ts';
import { getEvent } from './catalog/get-event.ts';
import { getShop } from './catalog/get-shop.ts';
import { listEvents } from './catalog/list-events.ts';
import { createEvent } from './integration/create-event.ts';
import { createPool } from './integration/create-pool.ts';
import { createShop } from './integration/create-shop.ts';
import { createTier } from './integration/create-tier.ts';
import { listPools } from './integration/list-pools.ts';
import { verifySignedMandate } from './mandates/verify-signed-mandate.ts';
import { authorizePayment } from './payments/authorize-payment.ts';
import { getPayment } from './payments/get-payment.ts';
import { linkPaymentProvider } from './payments/link-payment-provider.ts';
import { confirm } from './ticketing/confirm.ts';
import { getOrder } from './ticketing/get-order.ts';
import { getReservation } from './ticketing/get-reservation.ts';
import { listOrders } from './ticketing/list-orders.ts';
import { refundOrder } from './ticketing/refund-order.ts';
import { searchOrders } from './ticketing/search-orders.ts';
import { getOrderDetail } from './ticketing/get-order-detail.ts';
import { previewRefund } from './ticketing/preview-refund.ts';
import { resendOrderEmail } from './ticketing/resend-order-email.ts';
import { getSalesOverview } from './ticketing/get-sales-overview.ts';
import { createExport } from './ticketing/create-export.ts';
import { getInvoice } from './ticketing/get-invoice.ts';
import { listInvoices } from './ticketing/list-invoices.ts';
import { setTaxSettings } from './integration/set-tax-settings.ts';
import { getTaxSettings } from './integration/get-tax-settings.ts';
import { getTicketDownloads } from './ticketing/get-ticket-downloads.ts';
import { configureWalletPasses } from './integration/configure-wallet-passes.ts';
import { getWalletPasses } from './integration/get-wallet-passes.ts';
import { removeInstrumentTool } from './buyer/remove-instrument.ts';
import { checkIn } from './ticketing/check-in.ts';
import { getCheckInList } from './ticketing/get-check-in-list.ts';
import { getTicketKeys } from './ticketing/get-ticket-keys.ts';
import { listVoidedTickets } from './ticketing/list-voided-tickets.ts';
import { rotateTicketSigningKey } from './ticketing/rotate-ticket-signing-key.ts';
import { uploadScans } from './ticketing/upload-scans.ts';
import { getEventRefunds, refundEventOrders } from './ticketing/refund-event-orders.ts';
import { quote } from './ticketing/quote.ts';
import { release } from './ticketing/release.ts';
import { reserve } from './ticketing/reserve.ts';
import { purchaseInitiate } from './vic/purchase-initiate.ts';
import { getProductFeed } from './discovery/get-product-feed.ts';
import { getProductFeedMetadata } from './discovery/get-product-feed-metadata.ts';
import { getShopWindow } from './discovery/get-shop-window.ts';
import { listDiscoverableShops } from './discovery/list-discoverable-shops.ts';
import { deleteShop } from './integration/delete-shop.ts';
import { updateShopSettings } from './integration/update-shop-settings.ts';
import { setEmbedOrigins } from './console/set-embed-origins.ts';
import { cancelEvent } from './integration/cancel-event.ts';
import { retireTier } from './integration/retire-tier.ts';
import { updateEvent } from './integration/update-event.ts';
import { updatePool } from './integration/update-pool.ts';
import { updateTier } from './integration/update-tier.ts';
import { acceptTeamInvitation } from './console/accept-team-invitation.ts';
import { changeTeamMemberRole } from './console/change-team-member-role.ts';
import { completeConsoleSignInTool } from './console/complete-console-sign-in.ts';
import { inviteTeamMember } from './console/invite-team-member.ts';
import { listTeam } from './console/list-team.ts';
import { removeTeamMember } from './console/remove-team-member.ts';
import { requestConsoleSignInLinkTool } from './console/request-console-sign-in-link.ts';
import { revokeTeamInvitation } from './console/revoke-team-invitation.ts';
import { switchConsoleOrganization } from './console/switch-console-organization.ts';
import { getConsoleSession } from './console/get-console-session.ts';
import { endConsoleSession } from './console/end-console-session.ts';
import { listAuditLog } from './console/list-audit-log.ts';
import { configurePaymentProvider } from './payments/configure-payment-provider.ts';
import { listPaymentProviders } from './payments/list-payment-providers.ts';
import { createWebhook } from './webhooks/create-webhook.ts';
import { deleteWebhook } from './webhooks/delete-webhook.ts';
import { deleteAcpWebhook } from './webhooks/delete-acp-webhook.ts';
import { getAcpWebhook } from './webhooks/get-acp-webhook.ts';
import { setAcpWebhook } from './webhooks/set-acp-webhook.ts';
import { listWebhookDeliveries } from './webhooks/list-webhook-deliveries.ts';
import { getWebhookDelivery } from './webhooks/get-webhook-delivery.ts';
import { listWebhooks } from './webhooks/list-webhooks.ts';
import { listShops } from './catalog/list-shops.ts';
import { redeliverWebhookDelivery } from './webhooks/redeliver-webhook-delivery.ts';
import { sendTestWebhookEvent } from './webhooks/send-test-webhook-event.ts';
import { stepUpBuyerSessionTool } from './buyer/step-up-buyer-session.ts';
import { authorizeAgentTool } from './buyer/authorize-agent.ts';
import { scopeBuyerSessionTool } from './buyer/scope-buyer-session.ts';
import { getConsentDraftTool } from './buyer/get-consent-draft.ts';
import { saveConsentDraftTool } from './buyer/save-consent-draft.ts';
import { discardConsentDraftTool } from './buyer/discard-consent-draft.ts';
import { approveLimitRaiseTool } from './buyer/approve-limit-raise.ts';
import { declineLimitRaiseTool } from './buyer/decline-limit-raise.ts';
import { getLimitRaiseTool } from './buyer/get-limit-raise.ts';
import { requestLimitRaiseTool } from './ticketing/request-limit-raise.ts';
import { createDiscountCode } from './integration/create-discount-code.ts';
import { listDiscountCodes } from './integration/list-discount-codes.ts';
import { getDiscountCode } from './integration/get-discount-code.ts';
import { updateDiscountCode } from './integration/update-discount-code.ts';
import { deleteDiscountCode } from './integration/delete-discount-code.ts';
import { joinWaitingList } from './ticketing/join-waiting-list.ts';
import { leaveWaitingList } from './ticketing/leave-waiting-list.ts';
import { getWaitingListEntry } from './ticketing/get-waiting-list-entry.ts';
import { listWaitingList } from './ticketing/list-waiting-list.ts';
import { removeWaitingListEntry } from './ticketing/remove-waiting-list-entry.ts';
import { setWaitingList } from './ticketing/set-waiting-list.ts';

export const TOOLS: readonly AnyTool[] = [
  createShop,
  createEvent,
  createPool,
  listPools,
  createTier,
  getShop,
  listEvents,
  getEvent,
  quote,
  reserve,
  confirm,
  release,
  getReservation,
  getOrder,
  authorizePayment,
  getPayment,
  linkPaymentProvider,
  createWebhook,
  listWebhooks,
  deleteWebhook,
  setAcpWebhook,
  getAcpWebhook,
  deleteAcpWebhook,
  listWebhookDeliveries,
  getWebhookDelivery,
  verifySignedMandate,
  purchaseInitiate,
  mintBuyerSession,
  requestSignInLinkTool,
  completeSignInTool,
  getBuyerSession,
  endBuyerSession,
  setBuyerLanguageTool,
  requestVerificationCode,
  createAgentTool,
  listAgentsTool,
  pauseAgent,
  resumeAgent,
  deleteAgent,
  changeAgentCardTool,
  grantPermissionTool,
  listPermissionsTool,
  revokePermission,
  requestLimitRaiseTool,
  getLimitRaiseTool,
  approveLimitRaiseTool,
  declineLimitRaiseTool,
  startCardSetupTool,
  completeCardSetupTool,
  discardCardSetupTool,
  saveCardTool,
  listInstrumentsTool,
  listMyTicketsTool,
  raiseCardCapTool,
  lowerCardCapTool,
  createApiKey,
  listApiKeys,
  revokeApiKey,
  getAttestedConsent,
  withdrawAttestedPermissionTool,
  setOrganizationAttestation,
  createCheckoutSession,
  getCheckoutSession,
  updateCheckoutSession,
  completeCheckoutSession,
  cancelCheckoutSession,
  delegatePayment,
  getAcpDiscovery,
  createCheckout,
  getCheckout,
  updateCheckout,
  completeCheckout,
  cancelCheckout,
  getUcpOrderTool,
  searchCatalog,
  lookupCatalog,
  listDiscoverableShops,
  getShopWindow,
  getProductFeed,
  getProductFeedMetadata,
  updateShopSettings,
  deleteShop,
  setEmbedOrigins,
  updateEvent,
  cancelEvent,
  updateTier,
  retireTier,
  updatePool,
  requestConsoleSignInLinkTool,
  completeConsoleSignInTool,
  switchConsoleOrganization,
  getConsoleSession,
  endConsoleSession,
  listAuditLog,
  inviteTeamMember,
  acceptTeamInvitation,
  revokeTeamInvitation,
  listTeam,
  changeTeamMemberRole,
  removeTeamMember,
  configurePaymentProvider,
  listPaymentProviders,
  listOrders,
  refundOrder,
  searchOrders,
  getOrderDetail,
  previewRefund,
  resendOrderEmail,
  getSalesOverview,
  createExport,
  setTaxSettings,
  getTaxSettings,
  getInvoice,
  listInvoices,
  getTicketDownloads,
  configureWalletPasses,
  getWalletPasses,
  removeInstrumentTool,
  getTicketKeys,
  rotateTicketSigningKey,
  listVoidedTickets,
  checkIn,
  getCheckInList,
  uploadScans,
  refundEventOrders,
  getEventRefunds,
  listShops,
  sendTestWebhookEvent,
  redeliverWebhookDelivery,
  stepUpBuyerSessionTool,
  getConsentDraftTool,
  saveConsentDraftTool,
  discardConsentDraftTool,
  scopeBuyerSessionTool,
  authorizeAgentTool,
  joinWaitingList,
  leaveWaitingList,
  getWaitingListEntry,
  listWaitingList,
  removeWaitingListEntry,
  setWaitingList,
  createDiscountCode,
  listDiscountCodes,
  getDiscountCode,
  updateDiscountCode,
  deleteDiscountCode,
];
