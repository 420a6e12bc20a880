// Self-checking testbench for popcount16: every word with 0, 1, 2, 14, 15 or 16 bits set,
// walking patterns, and random words, against a model that counts bit by bit.
`timescale 1ns/1ps
module tb_popcount16;
    reg  [15:0] x;
    wire [4:0]  count;
    reg  [4:0]  m_count;
    reg  [15:0] t;
    integer errors, i, j, seed;

    popcount16 dut (.x(x), .count(count));

    task apply(input [15:0] v);
        begin
            x = v;
            #1;
            m_count = 0;
            t = v;
            while (t != 0) begin
                m_count = m_count + 1;
                t = t & (t - 16'd1);     // clear the lowest set bit
            end
            if (count !== m_count) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH x=%h: got count=%0d, expected %0d", x, count, m_count);
            end
        end
    endtask

    initial begin
        errors = 0; seed = 16;
        apply(16'h0000); apply(16'hFFFF);
        for (i = 0; i < 16; i = i + 1) begin
            apply(16'd1 << i);
            apply(~(16'd1 << i));
            for (j = i + 1; j < 16; j = j + 1) begin
                apply((16'd1 << i) | (16'd1 << j));
                apply(~((16'd1 << i) | (16'd1 << j)));
            end
            apply(16'hFFFF >> i);
            apply(16'hFFFF << i);
        end
        apply(16'h5555); apply(16'hAAAA); apply(16'h00FF); apply(16'hFF00); apply(16'h0F0F); apply(16'hF0F0);
        for (i = 0; i < 4000; i = i + 1) begin
            case (i % 3)
                0: apply($random(seed));
                1: apply($random(seed) & $random(seed));
                default: apply($random(seed) | $random(seed));
            endcase
        end
        if (errors == 0) $display("===========Your Design Passed===========");
        else $display("===========Test completed with %0d failures===========", errors);
        $finish;
    end
endmodule
