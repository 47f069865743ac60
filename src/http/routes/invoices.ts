import Joi from '../../joi';
import { defineRoute } from '../route';
import { idParams, offsetPage, pagedQuery, timestamp } from '../schemas';
import type { Invoices } from '../../services/orders/invoices';

const invoiceSummary = Joi.object({
  id: Joi.string().required(),
  number: Joi.string().required(),
  purchaseId: Joi.string().required(),
  total: Joi.number().integer().min(0).required(),
  createdAt: timestamp.required(),
}).meta({ component: 'InvoiceSummary' });

/** The services these routes use (their feature module's, src/modules). */
export interface InvoiceRouteServices {
  invoices: Invoices;
}

export const invoiceRoutes = (s: InvoiceRouteServices) => [
  defineRoute<'listInvoices', 'user'>({
    operationId: 'listInvoices',
    method: 'get',
    path: '/user/invoices',
    tag: 'Purchases',
    summary: "The caller's invoices (one per purchase), newest first unless `direction=asc`",
    auth: 'user',
    request: { query: pagedQuery },
    responses: { 200: { description: 'Invoices.', schema: offsetPage(invoiceSummary).meta({ component: 'InvoicePage' }) } },
    handler: async ({ principal, query }) => ({ status: 200, body: await s.invoices.list(principal.userId, query) }),
  }),

  defineRoute<'invoicePdf', 'user'>({
    operationId: 'invoicePdf',
    method: 'get',
    path: '/user/invoices/{id}/pdf',
    tag: 'Purchases',
    summary: "One of the caller's invoices as a PDF",
    auth: 'user',
    request: { params: idParams },
    responses: {
      200: { description: 'The invoice.', contentType: 'application/pdf' },
      404: { description: "Not found or not the caller's." },
    },
    handler: async ({ principal, params }) => ({
      status: 200,
      body: await s.invoices.pdf(principal.userId, params.id),
      contentType: 'application/pdf',
    }),
  }),
];
