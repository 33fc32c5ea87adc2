import { PersonalFields, personalTerms } from './erasure.service';

const row = (over: Partial<PersonalFields>): PersonalFields => ({
  customer_name: '',
  customer_email: null,
  customer_phone: null,
  reach: null,
  ...over,
});

describe('erasure: what leaves message texts', () => {
  it('the name, email (as written and in lower case), phone and reach details, longest first', () => {
    const terms = personalTerms([
      row({ customer_name: ' Grace Hopper ', customer_email: 'Grace@Example.com', customer_phone: '+15555550100' }),
      row({
        reach: {
          method: 'whatsapp',
          email: '',
          email_verified: false,
          whatsapp: '+4915112345678',
          whatsapp_verified: false,
          consent: true,
        },
      }),
    ]);
    expect(terms).toEqual(['Grace@Example.com', 'grace@example.com', '+4915112345678', 'Grace Hopper', '+15555550100']);
  });

  it('leaves out names too short to remove safely', () => {
    expect(personalTerms([row({ customer_name: 'Al' })])).toEqual([]);
  });
});
