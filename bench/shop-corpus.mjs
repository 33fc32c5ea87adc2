// The words of a generated outdoor shop that the benchmarks fill their rows, knowledge and questions with: brand
// syllables, products, colours, materials, cities, and the sentences of its knowledge by aspect.

/** Syllables the shop generators make brand names of. */
export const SYLLABLES = [
  'tra',
  'mon',
  'vel',
  'ka',
  'ri',
  'sto',
  'lan',
  'dor',
  'pe',
  'qui',
  'zen',
  'bru',
  'fal',
  'no',
  'ver',
  'sa',
  'tek',
  'lu',
  'mar',
  'gol',
  'bi',
  'ex',
  'or',
  'ta',
  'fin',
];

/** Products of an outdoor shop, for the generated knowledge pieces. */
export const PRODUCTS = [
  'hiking boots',
  'rain jacket',
  'city bike',
  'tent',
  'sleeping bag',
  'backpack',
  'kayak',
  'ski helmet',
  'running shoes',
  'wool sweater',
  'camping stove',
  'trekking poles',
  'snowboard',
  'climbing harness',
  'water bottle',
  'sunglasses',
  'bike lock',
  'headlamp',
  'travel pillow',
  'yoga mat',
  'paddle board',
  'down vest',
  'ski goggles',
  'e-bike',
  'cargo trailer',
  'insulated mug',
  'hammock',
  'fleece gloves',
  'ice axe',
  'softshell trousers',
];

/** Colours and materials a shop's text names ({colour}, {material} in the sentences below). */
export const COLOURS = ['black', 'navy', 'olive', 'red', 'grey', 'sand', 'teal', 'orange'];
export const MATERIALS = [
  'recycled polyester',
  'merino wool',
  'full-grain leather',
  'aluminium',
  'carbon fibre',
  'organic cotton',
  'Gore-Tex membrane',
  'ripstop nylon',
];
/** Cities of the shop's stores and warehouses ({c}). */
export const CITIES = [
  'Berlin',
  'Lyon',
  'Milan',
  'Porto',
  'Utrecht',
  'Valencia',
  'Vienna',
  'Zurich',
  'Munich',
  'Ghent',
  'Innsbruck',
  'Bologna',
  'Seville',
  'Graz',
  'Bordeaux',
];
/**
 * A shop's knowledge, sentences by aspect, and the sentences about nothing in particular (FILLER): placeholders {p}
 * product, {b} brand, {c} city, {n} a small number, {m} a larger one (euros, sizes), {material}, {colour}.
 */
export const ASPECTS = {
  shipping: [
    'We ship the {p} to most European countries within {n} working days.',
    'Orders of the {b} {p} above {m} euros ship free of charge; below that shipping costs {n} euros.',
    'Express delivery arrives the next business day when you order before noon.',
    'Tracking numbers are sent by email as soon as the parcel leaves our warehouse in {c}.',
    'Parcels to Switzerland and Norway may be held at customs for a few days.',
    'Bulky items such as the {p} are delivered by a freight carrier who calls ahead to arrange a time.',
  ],
  returns: [
    'You can return the {p} within {n} days if it is unused and in its original packaging.',
    'Refunds are issued to the original payment method within {n} days after we receive the return.',
    'Print the prepaid return label from your account and drop the parcel at any post office.',
    'Exchanges for another size or colour of the {b} {p} are free of charge.',
    'Items that were personalised or cut to length cannot be returned.',
    'Returned goods are inspected in our warehouse in {c} before the refund is released.',
  ],
  warranty: [
    'The {b} {p} comes with a {n}-year warranty covering manufacturing defects.',
    'Damage caused by misuse, accidents or normal wear and tear is not covered.',
    'To make a warranty claim, send us photos of the defect together with your order number.',
    'Repairs are carried out in our workshop in {c} and usually take {n} days.',
    'Zips, buckles and laces are replaced free of charge during the first year.',
  ],
  sizing: [
    'The {p} runs small, so we recommend ordering one size up.',
    'Measure yourself in the evening and compare the result with our size chart.',
    'The {b} {p} is available in sizes from {n} to {m}.',
    'If you are between two sizes, choose the larger one for thick winter layers.',
    'Our staff in {c} offer free fitting appointments on Saturdays.',
  ],
  care: [
    'Clean the {p} with lukewarm water and a soft brush; never put it in a dishwasher.',
    'Let the {b} {p} dry slowly at room temperature, away from radiators and direct sunlight.',
    'Reapply the waterproofing treatment every {n} weeks of regular use.',
    'Store the {p} in a dry, ventilated place during the off season.',
    'The {material} needs a gentle detergent without fabric softener.',
  ],
  pricing: [
    'The {b} {p} costs {m} euros including VAT.',
    'Members of our loyalty club get {n} percent off every purchase.',
    'Prices in the shop in {c} may differ from online prices during promotions.',
    'We match the price of any authorised dealer for the same {p} model.',
    'Students and apprentices receive a discount on presentation of a valid card.',
  ],
  rental: [
    'You can rent the {b} {p} for {n} euros per day or {m} euros per week.',
    'Rentals must be booked at least {n} hours in advance through our website.',
    'A deposit of {m} euros is held on your card and released once the {p} is returned undamaged.',
    'Late returns of a rented {p} are charged at the daily rate.',
    'Rental equipment is collected and returned at our branch in {c}.',
  ],
  payment: [
    'We accept credit cards, PayPal, bank transfer and invoice for business customers.',
    'Payment by invoice is due within {n} days of delivery.',
    'Your card is charged only when the {p} ships from {c}.',
    'Instalment payments over {n} months are available for orders above {m} euros.',
    'Gift cards can be combined with any other payment method.',
  ],
};
export const FILLER = [
  'Our team is happy to help you choose the right equipment for your next trip.',
  'Many customers combine the {p} with accessories from the same collection.',
  'Opening hours of our stores are Monday to Saturday from nine to seven.',
  'The {b} range was designed together with mountain guides from the Alps.',
  'Every product is tested in real conditions before it reaches our catalogue.',
  'Questions about your order can be sent through the contact form or by phone.',
  'We use {material} wherever possible to reduce our footprint.',
  'Our newsletter announces new arrivals and seasonal sales once a month.',
  'The {colour} version of the {p} is the most popular one this season.',
  'Independent reviewers praised the {b} {p} for its weight and durability.',
];
