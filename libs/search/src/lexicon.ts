import { fold, keyOf } from './analyzer';
import { SearchLanguage } from './language';

const list = (words: string) => words.split(/\s+/).filter(Boolean).map(fold);

/** Words that say nothing about what is asked, one set for every language (a visitor may switch language). */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  ...list(`a about above after again against all also am an and any anyone anything are as at be because been before being
    below between both but by can cannot cant could couldnt d did didnt do does doesnt doing done dont down during each
    either else ever every few for from further get gets getting got had has have having he her here hers him his how i
    id if im in into is isnt it its itll ive just know let ll like long lot m make many may me might more most much must
    my myself need needs no nor not now of off ok okay on once one only or other our ours out over own please pls plz re
    really s same shall she should so some someone something still such t tell than thank thanks that thats the their
    them then there theres these they this those through to too u under until up ur us ve very want wanted was we were
    what whats when where wheres which while who whom why will with wont would wouldnt yes yet you youre your yours hi hello hey
    dear guys go going come coming till somewhere anywhere take takes along around away`),
  ...list(`aber alle allem allen aller alles als also am an andere anderen anders auch auf aus bei beim bin bis bist bitte
    brauche brauchen da damit danke dann darf das dass dein deine dem den denn der des dich die dies diese diesem diesen
    dieser dieses dir doch dort du durch dürfen eigentlich ein eine einem einen einer eines einfach er es etwas euch euer
    eure eurem euren eurer für gegen gehen geht genau gern gerne gibt gibts hab habe haben habt hallo hat hatte hier hin
    ich ihm ihn ihnen ihr ihre ihrem ihren ihrer im in ins ist ja jede jedem jeden jeder jetzt kann kannst können könnt
    könnte lange mal man mein meine meinem meinen meiner mich mir mit muss müssen möchte möchten nach nein nicht nichts
    noch nun nur ob oder schon sehr sein seine seinem seinen seiner seid sich sie sind so soll sollte sonst um und uns
    unser unsere unserem unseren unserer unseres viel vom von vor wann war waren warum was weil welche welchem welchen welcher welches wenn wer werde
    werden wie wieder wieviel will wir wird wo wollen würde zu zum zur ab gleich machen macht fürs irgendwo
    rein raus rüber runter rauf hinein heraus`),
  ...list(`a à ai as au aussi aux avec avez avons bien bonjour ça ce cela ces cet cette chez combien comment d dans de des
    du elle elles en encore es est et être exactement faire fait faut il ils j je l la le les leur leurs lui m ma mais me
    merci mes moi mon n ne nos notre nous on ont ou où par pas peut peux pouvez pouvons pour pourquoi puis puisje qu quand
    que quel quelle quelles quels qui s sa salut sans se ses si son sont suis sur svp stp t ta te tes toi ton tout toute
    tous tu un une veux voudrais voulez vos votre vous y trop venir bout aller vais vas va allons allez vont fais faisons
    font`),
  ...list(`a al algo algún alguna algunas alguno algunos ante antes aquí como cómo con cuál cuales cuáles cuando cuándo
    cuánta cuántas cuánto cuántos de del desde donde dónde durante e el él ella ellas ellos en entre era es esa esas ese
    eso esos esta está están estar este esto estos falta gracias ha hace hacer hay hola la las le les lo los me mi mí mis
    mucho muy más necesito no nos nosotros o os para pero poco podría por porque puede pueden puedo que qué quién quiero
    quisiera se ser si sí sin sobre son su sus también te tengo tiene tienen todo tu tus un una uno unos usted ustedes vosotros
    y ya yo ahora nuestro nuestra nuestros nuestras vuestro vuestra vuestros vuestras ir voy vas va vamos van hago haces
    hacemos hacen haga`),
]);

/** Words customers use about anything they buy ("order", "item"): unknown, they weigh little. */
export const GENERIC_WORDS: ReadonlySet<string> = new Set(
  list(`order orders item items product products purchase thing things stuff info information question questions service services
    bestellung bestellungen artikel produkt produkte sache sachen frage fragen info service dienst dienste dienstleistung
    commande commandes article articles produit produits chose choses question questions info service services prestation
    pedido pedidos articulo articulos producto productos cosa cosas pregunta preguntas info servicio servicios
    place places spot way ways kind type option options possibility
    möglichkeit möglichkeiten art weg option optionen
    endroit moyen possibilité option options
    sitio lugar manera forma opción opciones posibilidad`),
);

/** Light verbs and adverbs: they carry a question ("can we bring…", "what happens if…") but not its topic. */
export const LIGHT_WORDS: ReadonlySet<string> = new Set(
  list(`bring brings bringing brought happen happens happened happening put puts putting use uses using able possible
    allowed fine sure maybe perhaps usually normally actually exactly already anyway somehow ask asked asking help find
    look looking see say said think works working elsewhere else otherwise
    sell sells selling offer offers offering provide provides stock
    verkauft verkaufen führt führen anbieten bietet bieten
    vendez vendre vend proposez proposer propose
    venden vender vende ofrecen ofrecer ofrece
    bringen bringe bringt mitbringen mitnehmen passiert passieren klappt klappen funktioniert möglich erlaubt okay ok
    nutzen benutzen verwenden bekommen bekomme bekommt kriegen kriege kriegt finden finde sagen weiss wissen helfen tun
    lassen normalerweise überhaupt woanders anderswo sonstwo
    apporter apporte apportez amener amène amenez passe passer arrive possible autorisé autorisée permis accord marche
    fonctionne utiliser utilise trouver trouve dire sais savoir aider mettre normalement déjà ailleurs
    traer traigo trae traen traemos llevar pasa pasar posible permitido permitida vale funciona usar encontrar decir
    saber ayudar poner pongo normalmente otro otra`),
);

/** Whether a folded word says nothing about what is asked: a stop word, or a single letter. */
export function isStopWord(folded: string): boolean {
  return STOP_WORDS.has(folded) || (folded.length === 1 && !/\p{N}/u.test(folded));
}

/** Commerce synonyms per language: a question word matches a piece holding another word of its group. */
const SYNONYMS: Partial<Record<SearchLanguage, string[]>> = {
  english: [
    'price cost costs fee fees charge charges rate rates',
    'rent rental hire hiring lease',
    'warranty guarantee guaranteed',
    'shipping delivery deliver postage ship shipped',
    'refund refunded reimburse',
    'send sent',
    'try test',
    'appointment booking book reserve reservation',
    'pay payment paying paid',
    'voucher coupon giftcard',
    'open opening hours',
    'address location',
    'park parking car',
    'instalment instalments installment installments monthly financing finance',
    'deposit security',
    'child children kid kids son daughter',
    'used secondhand',
    'phone telephone call',
    'email mail',
    'cancel cancellation',
    'discount reduction',
    'repair repairs repaired fix fixed fixing mend',
  ],
  german: [
    'preis preise kosten kostet gebühr gebühren tarif',
    'miete mieten vermieten ausleihen leihen verleih',
    'garantie gewährleistung',
    'lieferung liefern versand versenden zustellung',
    'erstattung rückerstattung',
    'termin buchen reservieren reservierung',
    'zahlen bezahlen zahlung',
    'gutschein geschenkgutschein',
    'offen geöffnet öffnungszeiten',
    'adresse standort anfahrt',
    'parken parkieren parkplatz auto',
    'rate raten ratenzahlung abzahlen finanzierung',
    'kaution pfand',
    'kind kinder sohn tochter',
    'gebraucht gebrauchte occasion',
    'telefon anrufen',
    'stornieren absagen',
    'rabatt ermässigung',
    'reparieren reparatur repariert flicken',
  ],
  french: [
    'prix coût coûte tarif tarifs frais',
    'louer location',
    'garantie garanti',
    'livraison livrer expédition envoi',
    'remboursement rembourser remboursé',
    'rendezvous rdv réserver réservation',
    'payer paiement',
    'bon cadeau',
    'ouvert ouverture horaires',
    'adresse trouver',
    'garer parking stationner voiture',
    'mensualités mensualité crédit financement',
    'caution dépôt',
    'enfant enfants fils fille',
    'occasion usagé',
    'téléphone appeler',
    'annuler annulation',
    'réduction remise rabais',
    'réparer réparation réparé',
  ],
  spanish: [
    'precio precios coste costo cuesta tarifa',
    'alquilar alquiler rentar',
    'garantía',
    'envío envíos enviar entrega entregar',
    'reembolso devolución devolver devuelvo devuelve devuelven',
    'cita reservar reserva',
    'pagar pago',
    'tarjeta regalo vale',
    'abierto abren abrir horario',
    'dirección llegar',
    'aparcar aparcamiento estacionar parking coche',
    'plazos cuotas financiación',
    'fianza depósito',
    'niño niños hijo hija',
    'usada usadas usado segunda mano',
    'teléfono llamar',
    'cancelar cancelación anular',
    'descuento rebaja',
    'reparar reparación arreglar arreglo arreglan',
  ],
};

/** For each language: a word's key → the keys of the other words of its groups. */
const SYNONYM_KEYS = new Map<SearchLanguage, Map<string, Set<string>>>();
for (const [language, groups] of Object.entries(SYNONYMS) as Array<[SearchLanguage, string[]]>) {
  const byKey = new Map<string, Set<string>>();
  for (const group of groups) {
    const keys = new Set(group.split(' ').map((word) => keyOf(word, language)));
    for (const key of keys) {
      const others = byKey.get(key) ?? new Set<string>();
      for (const other of keys) if (other !== key) others.add(other);
      byKey.set(key, others);
    }
  }
  SYNONYM_KEYS.set(language, byKey);
}

/** The keys that mean the same as `key` in `language` (none when it has no group). */
export function synonymsOf(key: string, language: SearchLanguage): ReadonlySet<string> {
  return SYNONYM_KEYS.get(language)?.get(key) ?? EMPTY;
}
const EMPTY: ReadonlySet<string> = new Set();
