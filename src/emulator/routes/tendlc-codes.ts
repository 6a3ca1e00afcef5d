/**
 * Enumerations of the 10DLC area, from the API reference (Brand, Campaigns) and production's
 * documentation (brands, campaigns, profiles). The use-case names and details are the emulator's own short wording.
 */

/** Industries of profiles, brands and campaigns (the API reference, Campaign register parameters). */
export const verticals = [
  'PROFESSIONAL',
  'REAL_ESTATE',
  'HEALTHCARE',
  'HUMAN_RESOURCES',
  'ENERGY',
  'ENTERTAINMENT',
  'RETAIL',
  'TRANSPORTATION',
  'AGRICULTURE',
  'INSURANCE',
  'POSTAL',
  'EDUCATION',
  'HOSPITALITY',
  'FINANCIAL',
  'POLITICAL',
  'GAMBLING',
  'LEGAL',
  'CONSTRUCTION',
  'NGO',
  'MANUFACTURING',
  'GOVERNMENT',
  'TECHNOLOGY',
  'COMMUNICATION',
] as const;

export interface UseCase {
  code: string;
  name: string;
  details: string;
}

/** The 12 use cases of a standard brand (the API reference, Brand use case item). */
export const useCases: readonly UseCase[] = [
  { code: '2FA', name: '2FA', details: 'One-time passwords and other authentication codes.' },
  { code: 'ACCOUNT_NOTIFICATION', name: 'Account Notification', details: 'Status updates about a customer account.' },
  { code: 'CUSTOMER_CARE', name: 'Customer Care', details: 'Support conversations and account management.' },
  {
    code: 'DELIVERY_NOTIFICATION',
    name: 'Delivery Notification',
    details: 'Status of the delivery of a product or service.',
  },
  { code: 'FRAUD_ALERT', name: 'Fraud Alert Messaging', details: 'Notices of possibly fraudulent activity.' },
  {
    code: 'HIGHER_EDUCATION',
    name: 'Higher Education',
    details: 'Messages from colleges, universities and school districts.',
  },
  { code: 'LOW_VOLUME', name: 'Low Volume Mixed', details: 'Several use cases at a small daily volume.' },
  { code: 'MARKETING', name: 'Marketing', details: 'Promotional and marketing content.' },
  { code: 'MIXED', name: 'Mixed', details: 'Several use cases on one campaign.' },
  { code: 'POLLING_VOTING', name: 'Polling and voting', details: 'Surveys and polls outside political campaigns.' },
  {
    code: 'PUBLIC_SERVICE_ANNOUNCEMENT',
    name: 'Public Service Announcement',
    details: 'Information that raises public awareness of an issue.',
  },
  { code: 'SECURITY_ALERT', name: 'Security Alert', details: 'Notices that a system or account may be compromised.' },
];

export const useCaseCodes: readonly string[] = useCases.map((useCase) => useCase.code);

/** Use cases that carry `sub_usecases` (the API reference, Campaign register parameters). */
export const multiUseCases: readonly string[] = ['MIXED', 'LOW_VOLUME'];

/** Allowed members of `sub_usecases`: every use case but the two that carry them. */
export const subUseCaseCodes: readonly string[] = useCaseCodes.filter((code) => !multiUseCases.includes(code));

/** Profile `entity_type` values (production's documentation). */
export const entityTypes = ['PRIVATE', 'PUBLIC', 'NON_PROFIT', 'GOVERNMENT', 'INDIVIDUAL'] as const;

export const customerTypes = ['DIRECT', 'RESELLER'] as const;

export const profileTypes = ['PRIMARY', 'SECONDARY'] as const;

export const altBusinessIdTypes = ['DUNS', 'LEI', 'GIIN', 'NONE'] as const;

/** Profile `stock_exchange` values (production's documentation). */
export const stockExchanges = [
  'NASDAQ',
  'NYSE',
  'AMEX',
  'AMX',
  'ASX',
  'B3',
  'BME',
  'BSE',
  'FRA',
  'ICEX',
  'JPX',
  'JSE',
  'KRX',
  'LON',
  'NSE',
  'OMX',
  'SEHK',
  'SGX',
  'SSE',
  'STO',
  'SWX',
  'SZSE',
  'TSX',
  'TWSE',
  'VSE',
  'OTHER',
] as const;
