"""Why the mask refuses a move: the reason codes its stages return (``masks.refusal``; ``engine.explain`` words
them). ``LEGAL`` is the mask's yes; each other code names the condition of the mask that said no."""

LEGAL = 0
STOCK_EMPTY = 1  # draw: no card left in the stock
STOCK_LEFT = 2  # stop or skip while the stock still has cards
NO_STOP = 3  # stop under stock_exhausted="play_out"
PILE_SHORT = 4  # take, rummy or split deeper than the pile
TAKE_NO_MELD = 5  # the card taken down to cannot be melded at once with the hand and the cards above it
TAKE_NEW_MELD = 6  # only a lay-off would place it, and take_requires_new_meld wants a new meld
TAKE_KEEPS_CARDS = 7  # going_out="discard_required": the take would leave no card to discard
ONLY_TOP_LEFT = 8  # the top card alone, with only copies of it left to discard
NO_FINISH = 9  # no legal way to finish the turn after the move
BELOW_MINIMUM = 10  # the turn could no longer reach first_meld_minimum
CANNOT_FORM = 11  # the hand (with its jokers) cannot make this placement
NOT_OBLIGED = 12  # the move does not meld the obliged card
NOT_HELD = 13  # discard of a card not in the hand
OBLIGED_FIRST = 14  # a card is obliged: it must be melded before a discard (or a block)
CALLER_PLACES = 15  # a "Rummy!" caller acting out of turn does not discard
TOP_TAKEN = 16  # the card taken alone from the top this turn
MUST_LAY_OFF = 17  # float_unplayable_discard: the last card fits the table
NOT_DEALER = 18  # only the dealer uses the dealer's joker
IN_A_CALL = 19  # the dealer's joker is not used in a "Rummy!" call out of turn
OTHER_POWER = 20  # the dealer's joker has another power (or none named yet)
DJ_GONE = 21  # the dealer's joker was used or blocked this hand
OWN_JOKER = 22  # the dealer cannot block their own joker
NO_JOKER = 23  # block without a joker in the hand
NO_DISCARD_LEFT = 24  # block would leave no card to discard
KEEP_A_CARD = 25  # out of turn a player keeps at least one card
PASS_BELOW_MINIMUM = 26  # pass out of turn before this window's melds reach first_meld_minimum
CALL_CANNOT_MELD = 27  # the pile card at that depth cannot be placed without cards from a hand
NOT_THIS_PHASE = 28  # the phase never offers this kind of move
RUN_TOO_SHORT = 29  # under min_run=4 a new run has at least four cards
