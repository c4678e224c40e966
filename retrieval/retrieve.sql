-- The fused retrieval query: three arms and their fusion in one statement.
--
-- Run by retrieval/query.py in one namespace's scope (retrieval/scope.py), so
-- row-level security already limits every table to that namespace; the explicit
-- namespace_id conditions are there for the planner (they select the right index
-- ranges), not for isolation. The semantic arm reads the namespace's own cue partition
-- by name (__cue_partition__ is replaced by it): the statement is prepared once per
-- namespace and connection and runs on a generic plan, and a generic plan over the
-- partitioned parent would name, and lock at every execution, every namespace's
-- partition. The partition has the same row-level security as the parent.
--
-- Parameters (bound; only the __placeholders__ are written in, by query.py, from
-- integers, constants and its own fixed text):
--   namespace_id, query, embedding (NULL when the semantic arm is off), now
--   tiers, tags           text[] filters, NULL = no filter; filtered = either is set
--   k1, b                 BM25 constants
--   cue_weight, body_weight   how much a term counts in the cues and in the body
--   lexical_depth         BM25 hits ranked (0 turns the arm off)
--   lexical_postings      postings a query reads, strongest first, shared by its terms
--   lexical_idf_power     how the share follows a term's idf (see query_terms)
--   lexical_term_postings_min   the least budget of any term
--   lexical_rescore       candidates scored exactly with every query term
--   __semantic_cues__     nearest cue vectors fetched (0 turns the arm off), a literal
--   semantic_depth        memories ranked from them, each by its best cue
--   graph_seeds           top lexical+semantic hits whose links are followed
--   graph_depth           graph hits ranked (0 = off)
--   lexical_weight, semantic_weight, graph_weight, rrf_k   weighted RRF
--   lexical_tie           BM25 scores this share below the best still rank first
--   semantic_max_distance  1 - min_similarity: the semantic arm's floor (NULL: none)
--   half_life_<tier>      ageing half-life in days, NULL = does not fade
--   cue_match_distance    1 - cue_match_similarity: a best cue this near is an exact
--                         cue (level 1); NULL = only normalised-equal cues (level 2)
--   cue_match_bonus       added to the score per exact-cue level (above any fused score)
--   cue_match_text_gate   cue texts are compared with the query only for memories whose
--                         best cue is this near (NULL: all, when the semantic arm is off)
--   date_from, date_to    the span of a date the query names, widened (NULL: none)
--   date_match_boost      a memory created or updated in it scores (1 + this) times more
--   query_tags            the names the query mentions, in the forms a tag takes
--                         (NULL: none, or the boost is 0)
--   tag_match_boost       a memory with a tag among them scores (1 + this) times more
--   limit
WITH
state AS (
    SELECT indexed_commit,
           doc_count::float8 AS doc_count,
           (%(cue_weight)s::float8 * cue_length_total
            + %(body_weight)s::float8 * body_length_total) / GREATEST(doc_count, 1) AS avgdl
    FROM retrieval_index_state
    WHERE namespace_id = %(namespace_id)s
),

-- Lexical arm: Okapi BM25 over the postings of the weighted tsvector.
--   tf(t, d)  = cue_weight * (occurrences in d's cues) + body_weight * (in its body)
--   dl(d)     = cue_weight * (terms in d's cues) + body_weight * (terms in its body)
--   idf(t)    = ln(1 + (N - df + 0.5) / (df + 0.5))
--   score(d)  = sum over query terms t of idf(t) * tf * (k1 + 1)
--                                        / (tf + k1 * (1 - b + b * dl / avgdl))
-- N, df and avgdl are this namespace's own (retrieval_index_state, retrieval_term_stat).
-- The query's terms are the distinct lexemes of to_tsvector(<the indexer's text-search
-- configuration>, query), with
-- their df and idf, computed once per term and MATERIALIZED:
-- it keeps the planner from estimating the term_stat x posting join from both tables'
-- most-common-value lists, which alone cost it milliseconds.
-- A query counts its 63 rarest terms (each gets a bit of a bigint, below); a longer
-- query's commonest terms would add little to any memory's score, and much work.
-- Each term's posting budget: a share of lexical_postings in proportion to its
-- idf ^ lexical_idf_power, at least lexical_term_postings_min (so a small namespace is
-- read in full), at most its df. A common term's postings make poor candidates (any
-- one of them scores little), and its share of a candidate's score is looked up
-- exactly below anyway; the total bounds the work of a query with many terms.
-- Per term also the constants of its BM25 share, so a posting's share is one short
-- expression: weight * tf / (tf + k_base + k_len * dl); k_bound, the least
-- k_len * dl / tf that a posting of impact 1 can have (impact = (tf_cues + tf_body) /
-- (cue_length + body_length), so dl / tf >= (the smaller weight / the larger) / impact;
-- 0 when a weight is 0), for the most a posting of a given impact can add:
-- weight / (1 + k_bound / impact); and the term's two bits in a memory's signature.
query_terms AS MATERIALIZED (
    SELECT term, df, idf, bit, 1::int8 << bit AS term_bit,
           idf * (%(k1)s::float8 + 1) AS weight,
           %(k1)s::float8 * (1 - %(b)s::float8) AS k_base,
           %(k1)s::float8 * %(b)s::float8 / NULLIF(avgdl, 0) AS k_len,
           coalesce(%(k1)s::float8 * %(b)s::float8 / NULLIF(avgdl, 0)
                    * LEAST(%(cue_weight)s::float8, %(body_weight)s::float8)
                    / NULLIF(GREATEST(%(cue_weight)s::float8, %(body_weight)s::float8), 0),
                    0) AS k_bound,
           1::int8 << (hash & 63)::int AS sig_a,
           1::int8 << ((hash >> 6) & 63)::int AS sig_b,
           LEAST(df, GREATEST(
               %(lexical_term_postings_min)s::float8,
               ceil(%(lexical_postings)s::float8 * power(idf, %(lexical_idf_power)s::float8)
                    / sum(power(idf, %(lexical_idf_power)s::float8)) OVER ())
           ))::int AS budget
    FROM (
        SELECT term, df, idf, avgdl, retrieval_term_hash(term) AS hash,
               (row_number() OVER (ORDER BY df, term) - 1)::int AS bit
        FROM (
            SELECT t.term, t.df, s.avgdl,
                   ln(1.0::float8 + (s.doc_count - t.df + 0.5::float8) / (t.df + 0.5::float8))
                       AS idf
            FROM (SELECT DISTINCT lexeme AS term
                  FROM unnest(to_tsvector('__text_search_config__', %(query)s))) q
            CROSS JOIN state s
            JOIN retrieval_term_stat t ON t.namespace_id = %(namespace_id)s AND t.term = q.term
        ) known
        ORDER BY df, term
        LIMIT 63
    ) counted
),
-- Each term's postings strongest first (impact = the term's share of the memory's
-- words), as many as its budget: every posting of a rarer term, the best-matching
-- memories of a very common one. Each row is one term's BM25 share, with the
-- posting's impact and its memory's term signature.
lexical_postings AS MATERIALIZED (
    SELECT p.document_id, q.bit, p.impact, p.sig_a, p.sig_b,
           q.weight * p.tf / NULLIF(p.tf + q.k_base + q.k_len * p.dl, 0) AS score
    FROM query_terms q
    CROSS JOIN LATERAL (
        SELECT p.document_id, p.impact, p.sig_a, p.sig_b,
               %(cue_weight)s::float8 * p.tf_cues + %(body_weight)s::float8 * p.tf_body AS tf,
               %(cue_weight)s::float8 * p.cue_length
                   + %(body_weight)s::float8 * p.body_length AS dl
        FROM retrieval_posting p
        WHERE p.namespace_id = %(namespace_id)s AND p.term = q.term
          AND (%(filtered)s IS FALSE
               OR p.document_id IN (
                   SELECT d.id FROM retrieval_document d
                   WHERE d.namespace_id = %(namespace_id)s
                     AND (%(tiers)s::text[] IS NULL OR d.tier = ANY (%(tiers)s::text[]))
                     AND (%(tags)s::text[] IS NULL OR d.tags @> %(tags)s::text[])
               ))
        ORDER BY p.impact DESC, p.document_id
        LIMIT q.budget
    ) p
),
-- The terms whose postings were cut (the budget ran out before the list did), each
-- with `rest`: the most any posting it did not read can add to a memory's score, its
-- share at the weakest impact read (postings are read in impact order).
lexical_rest AS MATERIALIZED (
    SELECT q.term, q.bit, q.term_bit, q.weight, q.k_base, q.k_len, q.sig_a, q.sig_b,
           q.weight / (1 + q.k_bound / r.impact) AS rest
    FROM query_terms q
    JOIN (SELECT bit, count(*) AS n, min(impact) AS impact
          FROM lexical_postings GROUP BY bit) r ON r.bit = q.bit
    WHERE q.df > q.budget AND r.n >= q.budget
),
-- The cut terms with the most to add, LEXICAL_SLOTS (query.py) at most, as one row
-- of columns (slot n: a_n, b_n, bit_n, rest_n; query.py writes them out): what a
-- candidate may still score is a sum of plain expressions, not a join per candidate.
lexical_slots AS MATERIALIZED (
    SELECT __lexical_slot_columns__
    -- (an empty slot's bit_n is NULL: no term ranked n)
    FROM (SELECT term_bit, sig_a, sig_b, rest,
                 row_number() OVER (ORDER BY rest DESC, bit) AS slot
          FROM lexical_rest) ranked
),
-- Candidates: the memories found, ranked by what they may score: the shares read plus,
-- for every cut term whose postings of the memory were not read and that its term
-- signature has (a Bloom filter: certainly absent when a bit is missing), the most
-- that term can add. The signature is what makes this ranking sharp: without it every
-- memory may score every cut term, and the best candidates are those that found the
-- most by chance.
lexical_candidates AS MATERIALIZED (
    SELECT c.document_id, c.score, c.seen, c.sig_a, c.sig_b
    FROM (
        SELECT document_id, sum(score) AS score, bit_or(1::int8 << bit) AS seen,
               min(sig_a) AS sig_a, min(sig_b) AS sig_b
        FROM lexical_postings
        GROUP BY document_id
        -- a term counted with weight 0 (cue_weight or body_weight) finds, but adds nothing
        HAVING sum(score) > 0
    ) c
    CROSS JOIN lexical_slots s
    -- __lexical_slot_bonus__ (query.py): for each filled slot n, in order, rest_n if
    -- the candidate's signature has both of the term's bits and its postings of the
    -- term were not read; nested so that the first empty slot ends the sum (at 10,000
    -- memories most queries cut one or two terms, and evaluating eight slots for every
    -- one of ~1,000 candidates cost ~2% of the statement's CPU).
    ORDER BY c.score + __lexical_slot_bonus__
          DESC, c.document_id
    LIMIT %(lexical_rescore)s
),
-- Their exact scores: the shares of cut terms not read are looked up through the
-- (document, term) index, for the terms the memory's signature has only (a lookup
-- for a term it lacks would find nothing).
lexical_cut AS (
    SELECT c.document_id,
           q.weight * p.tf / NULLIF(p.tf + q.k_base + q.k_len * p.dl, 0) AS score
    FROM lexical_candidates c
    -- the terms whose postings of the candidate were read (its bits in `seen`) are
    -- in its score already; a bit test rather than an anti-join with the postings,
    -- whose number no generic plan can know (it chose a nested loop over all of them
    -- per candidate)
    JOIN lexical_rest q
      ON c.seen & q.term_bit = 0
     AND c.sig_a & q.sig_a = q.sig_a AND c.sig_b & q.sig_b = q.sig_b
    CROSS JOIN LATERAL (
        SELECT %(cue_weight)s::float8 * p.tf_cues + %(body_weight)s::float8 * p.tf_body AS tf,
               %(cue_weight)s::float8 * p.cue_length
                   + %(body_weight)s::float8 * p.body_length AS dl
        FROM retrieval_posting p
        WHERE p.document_id = c.document_id AND p.term = q.term
          AND p.namespace_id = %(namespace_id)s
        OFFSET 0  -- keeps this a per-(candidate, term) probe; flattened, the planner
                  -- probes by document alone and filters every posting of it
    ) p
),
lexical_scores AS (
    SELECT document_id, sum(score) AS score
    FROM (
        SELECT document_id, score FROM lexical_candidates
        UNION ALL
        SELECT document_id, score FROM lexical_cut
    ) parts
    GROUP BY document_id
    ORDER BY score DESC, document_id
    LIMIT %(lexical_depth)s
),
-- The first place is shared: every memory within lexical_tie of the best score ranks 1
-- (query.py, FusionParams.lexical_tie); the rest rank by score.
lexical AS (
    SELECT s.document_id, s.score,
           CASE WHEN s.score * (1 + %(lexical_tie)s::float8) >= max(s.score) OVER () THEN 1
                ELSE row_number() OVER (ORDER BY s.score DESC, s.document_id) END AS rank
    FROM lexical_scores s
),

-- Semantic arm: the nearest cue vectors (HNSW on this namespace's partition; tier and
-- tags are copied onto cue rows so a filter is checked inside the index scan), then
-- each memory once, by its best cue.
semantic_cues AS MATERIALIZED (
    SELECT document_id, cue, distance
    FROM (
        SELECT c.document_id, c.cue, c.embedding <=> %(embedding)s::vector AS distance
        FROM __cue_partition__ c
        -- __cue_filters__: the tier/tag conditions of a filtered query, else true
        -- (query.py): on a generic plan, conditions on parameters it cannot see make
        -- the planner expect a hundredth of the partition and scan it exactly.
        WHERE c.namespace_id = %(namespace_id)s
          AND __cue_filters__
    ) nearest
    -- For an exact scan (the bench's recall check) query.py orders by distance + 0,
    -- an order the HNSW index cannot serve, so the partition is scanned.
    -- The limit is written into the statement (query.py), not bound: a generic plan
    -- that does not know it costs the HNSW scan for a tenth of the partition and
    -- picks an exact scan of a 10,000-memory partition instead.
    ORDER BY distance
    LIMIT __semantic_cues__
),
-- Memories whose best cues are equally near (the same question asked of both: "what
-- do I read" of "I'm reading Dune" and, months later, of "I'm reading Piranesi") rank
-- the most recently updated first: of two equal answers the later is the current one.
semantic AS (
    SELECT b.document_id, b.cue, b.distance,
           row_number() OVER (ORDER BY b.distance, d.updated DESC, b.document_id) AS rank
    FROM (
        SELECT DISTINCT ON (document_id) document_id, cue, distance
        FROM semantic_cues
        -- the relevance floor (min_similarity): cues further than it find nothing
        WHERE %(semantic_max_distance)s::float8 IS NULL
           OR distance <= %(semantic_max_distance)s::float8
        ORDER BY document_id, distance, cue
    ) b
    JOIN retrieval_document d ON d.namespace_id = %(namespace_id)s AND d.id = b.document_id
    ORDER BY rank
    LIMIT %(semantic_depth)s
),

-- Graph arm: one hop along `related` links, both ways, from the best hits of the two
-- other arms (ranked among themselves by the same weighted RRF). A memory reached from
-- several seeds keeps the link from the best seed, and its graph rank is that seed's
-- rank: a link from the first hit is worth more than one from the tenth.
seeds AS (
    SELECT document_id, sum(contribution) AS score,
           row_number() OVER (ORDER BY sum(contribution) DESC, document_id) AS seed_rank
    FROM (
        SELECT document_id, %(lexical_weight)s::float8 / (%(rrf_k)s::float8 + rank) AS contribution
        FROM lexical
        UNION ALL
        SELECT document_id, %(semantic_weight)s::float8 / (%(rrf_k)s::float8 + rank)
        FROM semantic
    ) seed_arms
    GROUP BY document_id
    ORDER BY score DESC, document_id
    LIMIT %(graph_seeds)s
),
links AS (
    SELECT e.dst_document_id AS document_id, e.src_path AS via_path, e.type AS via_type,
           'out' AS direction, s.seed_rank
    FROM seeds s
    JOIN retrieval_edge e
      ON e.namespace_id = %(namespace_id)s AND e.src_document_id = s.document_id
    WHERE e.dst_document_id <> e.src_document_id
    UNION ALL
    SELECT e.src_document_id, e.dst_path, e.type, 'in', s.seed_rank
    FROM seeds s
    JOIN retrieval_edge e
      ON e.namespace_id = %(namespace_id)s AND e.dst_document_id = s.document_id
    WHERE e.src_document_id <> e.dst_document_id
),
-- A link to a seed marks a memory only where seeds are a small share of the namespace
-- (with 20 seeds among 15 memories every memory is one): a link's worth is nothing up
-- to graph_seeds memories and whole from graph_full_at times as many. A `supersedes`
-- link is worth its whole at any size: its two memories say the same thing, then and now.
link_worth AS (
    SELECT CASE WHEN %(graph_full_at)s::float8 <= 1 THEN 1 ELSE
               least(1::float8, greatest(0::float8,
                   (doc_count / greatest(%(graph_seeds)s::float8, 1) - 1)
                   / (%(graph_full_at)s::float8 - 1)))
           END AS worth
    FROM state
),
worthy_links AS (
    SELECT l.*, CASE WHEN l.via_type = 'supersedes' THEN 1 ELSE w.worth END AS worth
    FROM links l CROSS JOIN link_worth w
),
graph AS (
    SELECT document_id, via_path, via_type, direction, seed_rank AS rank, worth
    FROM (
        SELECT DISTINCT ON (l.document_id) l.*
        FROM worthy_links l
        WHERE %(filtered)s IS FALSE
           OR l.document_id IN (
               SELECT d.id FROM retrieval_document d
               WHERE d.namespace_id = %(namespace_id)s
                 AND (%(tiers)s::text[] IS NULL OR d.tier = ANY (%(tiers)s::text[]))
                 AND (%(tags)s::text[] IS NULL OR d.tags @> %(tags)s::text[])
           )
        -- the link worth most: the best seed's, unless a supersedes link is worth more
        ORDER BY l.document_id, l.worth / (%(rrf_k)s::float8 + l.seed_rank) DESC,
                 l.seed_rank, l.via_path, l.via_type
    ) best_link
    ORDER BY seed_rank, document_id
    LIMIT %(graph_depth)s
),

-- The query as exact-cue matching compares it (the exact-cue CASE in `scored`).
query_key AS MATERIALIZED (
    SELECT btrim(regexp_replace(lower(%(query)s), '[^[:alnum:]]+', ' ', 'g')) AS key
),

-- Fusion: weighted reciprocal-rank fusion, the sum over the arms that found a memory
-- of weight / (rrf_k + rank), then its tier's ageing factor
-- 0.5 ^ (days since `updated` / half-life), 1 while a day it names is still to come.
-- One row per arm hit, one GROUP BY: the per-arm details ride along as filtered
-- aggregates instead of three more joins.
hits AS (
    SELECT document_id, 'lexical' AS arm, rank,
           %(lexical_weight)s::float8 / (%(rrf_k)s::float8 + rank) AS contribution,
           score AS lexical_score, NULL::text AS cue, NULL::float8 AS distance,
           NULL::text AS via_path, NULL::text AS via_type, NULL::text AS direction
    FROM lexical
    UNION ALL
    SELECT document_id, 'semantic', rank,
           %(semantic_weight)s::float8 / (%(rrf_k)s::float8 + rank),
           NULL, cue, distance, NULL, NULL, NULL
    FROM semantic
    UNION ALL
    SELECT document_id, 'graph', rank,
           %(graph_weight)s::float8 * worth / (%(rrf_k)s::float8 + rank),
           NULL, NULL, NULL, via_path, via_type, direction
    FROM graph
),
fused AS (
    SELECT document_id,
           sum(contribution) AS rrf,
           min(rank) FILTER (WHERE arm = 'lexical') AS lexical_rank,
           min(lexical_score) AS lexical_score,
           min(rank) FILTER (WHERE arm = 'semantic') AS semantic_rank,
           min(cue) AS semantic_cue,
           min(distance) AS semantic_distance,
           min(rank) FILTER (WHERE arm = 'graph') AS graph_rank,
           min(via_path) AS via_path,
           min(via_type) AS via_type,
           min(direction) AS via_direction
    FROM hits
    GROUP BY document_id
),
scored AS (
    SELECT d.id AS document_id, d.path, d.tier, d.tags, d.cues, d.created, d.updated, d.confidence,
           d.sources, d.related, d.body,
           f.rrf * CASE
               WHEN half_life IS NULL THEN 1.0
               -- counted from when it was said; nothing while the day it names is
               -- still to come: a plan does not fade before its day
               -- (retrieval_named_until, migration 0014)
               ELSE %(age_floor)s::float8 + (1 - %(age_floor)s::float8) * power(0.5, CASE
                   WHEN retrieval_named_until(d.body) > %(now)s::timestamptz THEN 0
                   ELSE GREATEST(
                       extract(epoch FROM (%(now)s::timestamptz - d.updated))::float8 / 86400.0, 0
                   )
               END / half_life)
           END
           -- A date the query names (retrieval/dates.py: the day, month or year,
           -- widened by date_match_slack_days; NULL when it names none) that the
           -- memory's created or updated falls in.
           * CASE
                 WHEN (d.created >= %(date_from)s::timestamptz
                       AND d.created < %(date_to)s::timestamptz)
                   OR (d.updated >= %(date_from)s::timestamptz
                       AND d.updated < %(date_to)s::timestamptz)
                 THEN 1 + %(date_match_boost)s::float8
                 ELSE 1
             END
           -- A tag of the memory that is a name the query mentions (query_tags:
           -- retrieval/names.py, each name as written, lower case, and with - or _
           -- for its spaces; NULL: none): one array overlap, no per-tag work.
           * CASE
                 WHEN d.tags && %(query_tags)s::text[] THEN 1 + %(tag_match_boost)s::float8
                 ELSE 1
             END
           -- Exact cue: a memory with a cue equal to the query after normalisation
           -- (lower case, runs of anything but letters and digits as one space,
           -- trimmed) is level 2, one whose best cue is near-equal (semantic distance
           -- <= cue_match_distance, i.e. cosine >= 0.95 by default) level 1; each level
           -- adds cue_match_bonus (> any fused score), so such a memory ranks first
           -- whatever the arms and links say of its neighbours. Checked on the fused
           -- candidates only (a cue equal to the query is the semantic arm's nearest),
           -- and the texts only where the best cue is within cue_match_text_gate (far
           -- wider than equal texts ever are; all candidates when the semantic arm is
           -- off, gate NULL). Inline, nested CASEs: the text check runs for the few
           -- memories past the gate (a lateral subquery per candidate cost ~0.6 ms).
           + CASE
                 WHEN %(cue_match_text_gate)s::float8 IS NULL
                   OR f.semantic_distance <= %(cue_match_text_gate)s::float8 THEN
                     CASE
                         WHEN EXISTS (
                             SELECT 1 FROM unnest(d.cues) c(cue)
                             WHERE btrim(regexp_replace(lower(c.cue), '[^[:alnum:]]+', ' ', 'g'))
                                   = (SELECT key FROM query_key)
                         ) THEN 2
                         WHEN f.semantic_distance <= %(cue_match_distance)s::float8 THEN 1
                         ELSE 0
                     END
                 ELSE 0
             END * %(cue_match_bonus)s::float8 AS score,
           f.lexical_rank, f.lexical_score, f.semantic_rank, f.semantic_cue,
           f.semantic_distance, f.graph_rank, f.via_path, f.via_type, f.via_direction
    FROM fused f
    JOIN retrieval_document d ON d.namespace_id = %(namespace_id)s AND d.id = f.document_id
    CROSS JOIN LATERAL (
        SELECT (CASE d.tier
                    WHEN 'facts' THEN %(half_life_facts)s
                    WHEN 'preferences' THEN %(half_life_preferences)s
                    WHEN 'events' THEN %(half_life_events)s
                    WHEN 'working' THEN %(half_life_working)s
                END)::float8 AS half_life
    ) tier_half_life
),
-- Current truth first: a memory another found memory supersedes (a `supersedes` link,
-- written when a correction could not be folded into it) scores just below the lowest
-- of its successors, so it never ranks above the statement that replaced it; history
-- and as_of still show it as it was.
superseded AS (
    SELECT e.dst_document_id AS document_id, min(n.score) AS successor_score
    FROM retrieval_edge e
    JOIN scored n ON n.document_id = e.src_document_id
    WHERE e.namespace_id = %(namespace_id)s AND e.type = 'supersedes'
      AND e.dst_document_id IN (SELECT document_id FROM scored)
      AND e.dst_document_id <> e.src_document_id
    GROUP BY e.dst_document_id
),
ranked AS (
    SELECT s.path, s.tier, s.tags, s.cues, s.created, s.updated, s.confidence,
           s.sources, s.related, s.body,
           CASE WHEN p.document_id IS NULL THEN s.score
                ELSE LEAST(s.score, p.successor_score * 0.999) END AS score,
           s.lexical_rank, s.lexical_score, s.semantic_rank, s.semantic_cue,
           s.semantic_distance, s.graph_rank, s.via_path, s.via_type, s.via_direction
    FROM scored s
    LEFT JOIN superseded p ON p.document_id = s.document_id
    ORDER BY score DESC, s.path
    LIMIT %(limit)s
)
SELECT state.indexed_commit, ranked.*
FROM state
LEFT JOIN ranked ON true
ORDER BY ranked.score DESC NULLS LAST, ranked.path
