// Plays Ludii's Kalah for benchmarks/bench_ludii.py, one command a line on standard input and
// one reply a line on standard output (the protocol is described in bench_ludii.py's
// docstring). Compiled by that script with `javac -cp Ludii.jar`; nothing of nugar is needed
// here, and nothing of Ludii is copied: it calls Ludii's public API (a Game loaded by name, a
// Trial and Context to play it, an AI from Ludii's AIFactory).
//
//     java -cp Ludii.jar:BUILD LudiiKalahBridge [AI name]     (no name: the game's own AI)

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import game.Game;
import other.AI;
import other.GameLoader;
import other.context.Context;
import other.move.Move;
import other.state.container.ContainerState;
import other.trial.Trial;
import utils.AIFactory;

public final class LudiiKalahBridge
{
    private final Game game;
    private final String aiName;
    private final AI[] ais = new AI[3];  // Ludii counts players from 1
    private Context context;

    private LudiiKalahBridge(final String aiName)
    {
        this.game = GameLoader.loadGameFromName("Kalah.lud");
        this.aiName = aiName;
        start();
    }

    private void start()
    {
        context = new Context(game, new Trial(game));
        game.start(context);
        for (int p = 1; p <= 2; ++p)
        {
            ais[p] = aiName.isEmpty() ? AIFactory.fromMetadata(game) : AIFactory.createAI(aiName);
            if (ais[p] == null)
                throw new IllegalArgumentException("Ludii has no AI named " + aiName);
            ais[p].initAI(game, p);
        }
    }

    private static String counts(final Context of, final int sites)
    {
        final ContainerState board = of.state().containerStates()[0];
        final StringBuilder out = new StringBuilder();
        for (int site = 0; site < sites; ++site)
        {
            if (site > 0)
                out.append(',');
            out.append(board.countCell(site));
        }
        return out.toString();
    }

    private List<Move> legal()
    {
        final List<Move> out = new ArrayList<>();
        if (!context.trial().over())
            for (final Move move : game.moves(context).moves())
                out.add(move);
        return out;
    }

    private Move legalFrom(final int site)
    {
        for (final Move move : legal())
            if (move.from() == site)
                return move;
        throw new IllegalArgumentException("no legal move from site " + site);
    }

    private String state()
    {
        final StringBuilder legal = new StringBuilder();
        for (final Move move : legal())
        {
            if (legal.length() > 0)
                legal.append(',');
            legal.append(move.from());
        }
        String result = "-";
        if (context.trial().over())
        {
            final double[] ranking = context.trial().ranking();
            result = ranking[1] < ranking[2] ? "1" : ranking[2] < ranking[1] ? "2" : "0";
        }
        return "STATE mover=" + context.state().mover() + " over=" + (context.trial().over() ? 1 : 0)
            + " counts=" + counts(context, game.board().numSites()) + " legal=" + legal
            + " result=" + result;
    }

    private String answer(final String line)
    {
        final String[] words = line.trim().split("\\s+");
        switch (words[0])
        {
            case "START":
                start();
                return "OK";
            case "STATE":
                return state();
            case "TRY":
            {
                final Context copy = new Context(context);
                game.apply(copy, legalFrom(Integer.parseInt(words[1])));
                return "COUNTS " + counts(copy, game.board().numSites());
            }
            case "PLAY":
                game.apply(context, legalFrom(Integer.parseInt(words[1])));
                return "OK";
            case "THINK":
            {
                final int mover = context.state().mover();
                final Move move = ais[mover].selectAction(game, new Context(context),
                                                          Double.parseDouble(words[1]), -1, -1);
                return "MOVE " + move.from();
            }
            default:
                throw new IllegalArgumentException("unknown command " + words[0]);
        }
    }

    public static void main(final String[] args) throws Exception
    {
        final PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        final LudiiKalahBridge bridge = new LudiiKalahBridge(args.length > 0 ? args[0] : "");
        out.println("READY sites=" + bridge.game.board().numSites() + " ai="
                    + bridge.ais[1].friendlyName().replace(' ', '_'));
        final BufferedReader in =
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine())
        {
            if (line.trim().equals("QUIT"))
                break;
            try
            {
                out.println(bridge.answer(line));
            }
            catch (final RuntimeException error)
            {
                out.println("ERR " + error);
            }
        }
    }
}
