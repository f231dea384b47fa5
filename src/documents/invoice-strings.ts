/** The words on receipts, invoices and credit notes, in the six languages of the buyer pages and e-mails. */

/** One language's words. */
export interface InvoiceWords {
  receipt: string;
  invoice: string;
  creditNote: string;
  number: string;
  date: string;
  order: string;
  seller: string;
  vatId: string;
  buyer: string;
  item: string;
  quantity: string;
  unitPrice: string;
  amount: string;
  fees: string;
  rate: string;
  net: string;
  tax: string;
  gross: string;
  total: string;
  refunded: string;
  creditFor: string;
  pricesInclude: string;
  pricesExclude: string;
}

export const INVOICE_WORDS: Readonly<Record<string, InvoiceWords>> = {
  en: {
    receipt: 'Receipt',
    invoice: 'Invoice',
    creditNote: 'Credit note',
    number: 'Number',
    date: 'Date',
    order: 'Order',
    seller: 'Seller',
    vatId: 'VAT ID',
    buyer: 'Buyer',
    item: 'Item',
    quantity: 'Qty',
    unitPrice: 'Unit price',
    amount: 'Amount',
    fees: 'Fees',
    rate: 'Tax rate',
    net: 'Net',
    tax: 'Tax',
    gross: 'Gross',
    total: 'Total',
    refunded: 'Refunded',
    creditFor: 'Corrects invoice',
    pricesInclude: 'Prices include tax.',
    pricesExclude: 'Tax is added to the prices.',
  },
  de: {
    receipt: 'Quittung',
    invoice: 'Rechnung',
    creditNote: 'Gutschrift',
    number: 'Nummer',
    date: 'Datum',
    order: 'Bestellung',
    seller: 'Verkäufer',
    vatId: 'USt-IdNr.',
    buyer: 'Käufer',
    item: 'Position',
    quantity: 'Menge',
    unitPrice: 'Einzelpreis',
    amount: 'Betrag',
    fees: 'Gebühren',
    rate: 'Steuersatz',
    net: 'Netto',
    tax: 'Steuer',
    gross: 'Brutto',
    total: 'Gesamtbetrag',
    refunded: 'Erstattet',
    creditFor: 'Korrigiert Rechnung',
    pricesInclude: 'Die Preise enthalten die Steuer.',
    pricesExclude: 'Die Steuer kommt zu den Preisen hinzu.',
  },
  fr: {
    receipt: 'Reçu',
    invoice: 'Facture',
    creditNote: 'Avoir',
    number: 'Numéro',
    date: 'Date',
    order: 'Commande',
    seller: 'Vendeur',
    vatId: 'N° de TVA',
    buyer: 'Acheteur',
    item: 'Article',
    quantity: 'Qté',
    unitPrice: 'Prix unitaire',
    amount: 'Montant',
    fees: 'Frais',
    rate: 'Taux de taxe',
    net: 'HT',
    tax: 'Taxe',
    gross: 'TTC',
    total: 'Total',
    refunded: 'Remboursé',
    creditFor: 'Corrige la facture',
    pricesInclude: 'Les prix incluent la taxe.',
    pricesExclude: 'La taxe s’ajoute aux prix.',
  },
  es: {
    receipt: 'Recibo',
    invoice: 'Factura',
    creditNote: 'Nota de crédito',
    number: 'Número',
    date: 'Fecha',
    order: 'Pedido',
    seller: 'Vendedor',
    vatId: 'NIF-IVA',
    buyer: 'Comprador',
    item: 'Concepto',
    quantity: 'Cant.',
    unitPrice: 'Precio unitario',
    amount: 'Importe',
    fees: 'Cargos',
    rate: 'Tipo impositivo',
    net: 'Base',
    tax: 'Impuesto',
    gross: 'Bruto',
    total: 'Total',
    refunded: 'Reembolsado',
    creditFor: 'Rectifica la factura',
    pricesInclude: 'Los precios incluyen el impuesto.',
    pricesExclude: 'El impuesto se suma a los precios.',
  },
  hu: {
    receipt: 'Nyugta',
    invoice: 'Számla',
    creditNote: 'Jóváírás',
    number: 'Sorszám',
    date: 'Kelt',
    order: 'Rendelés',
    seller: 'Eladó',
    vatId: 'Adószám',
    buyer: 'Vevő',
    item: 'Tétel',
    quantity: 'Menny.',
    unitPrice: 'Egységár',
    amount: 'Összeg',
    fees: 'Díjak',
    rate: 'Adókulcs',
    net: 'Nettó',
    tax: 'Adó',
    gross: 'Bruttó',
    total: 'Fizetendő összesen',
    refunded: 'Visszatérítve',
    creditFor: 'Helyesbített számla',
    pricesInclude: 'Az árak tartalmazzák az adót.',
    pricesExclude: 'Az adó az árakon felül értendő.',
  },
  'pt-BR': {
    receipt: 'Recibo',
    invoice: 'Fatura',
    creditNote: 'Nota de crédito',
    number: 'Número',
    date: 'Data',
    order: 'Pedido',
    seller: 'Vendedor',
    vatId: 'Nº fiscal',
    buyer: 'Comprador',
    item: 'Item',
    quantity: 'Qtd.',
    unitPrice: 'Preço unitário',
    amount: 'Valor',
    fees: 'Taxas de serviço',
    rate: 'Alíquota',
    net: 'Líquido',
    tax: 'Imposto',
    gross: 'Bruto',
    total: 'Total',
    refunded: 'Reembolsado',
    creditFor: 'Corrige a fatura',
    pricesInclude: 'Os preços incluem o imposto.',
    pricesExclude: 'O imposto é somado aos preços.',
  },
};
