// Self-checking testbench for ripple_sum4: directed corners (carry chains through every adder)
// and random operands, compared against an integer sum.
`timescale 1ns/1ps
module tb_ripple_sum4;
    reg  [15:0] a, b, c, d;
    wire [17:0] sum;
    reg  [17:0] m_sum;
    integer errors, i, seed;

    ripple_sum4 dut (.a(a), .b(b), .c(c), .d(d), .sum(sum));

    task apply(input [15:0] w, input [15:0] x, input [15:0] y, input [15:0] z);
        begin
            a = w; b = x; c = y; d = z;
            #1;
            m_sum = 0;
            m_sum = m_sum + w;
            m_sum = m_sum + x;
            m_sum = m_sum + y;
            m_sum = m_sum + z;
            if (sum !== m_sum) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH a=%h b=%h c=%h d=%h: got sum=%h, expected %h", a, b, c, d, sum, m_sum);
            end
        end
    endtask

    initial begin
        errors = 0; seed = 4;
        apply(16'h0000, 16'h0000, 16'h0000, 16'h0000);
        apply(16'hFFFF, 16'hFFFF, 16'hFFFF, 16'hFFFF);
        apply(16'hFFFF, 16'h0001, 16'h0000, 16'h0000);
        apply(16'h0000, 16'h0000, 16'hFFFF, 16'h0001);
        apply(16'hFFFF, 16'h0001, 16'hFFFF, 16'h0001);
        apply(16'hFFFF, 16'hFFFF, 16'h0001, 16'h0001);
        apply(16'h8000, 16'h8000, 16'h8000, 16'h8000);
        apply(16'h5555, 16'hAAAA, 16'h5555, 16'hAAAA);
        apply(16'h7FFF, 16'h7FFF, 16'h7FFF, 16'h0003);
        for (i = 0; i < 16; i = i + 1) begin
            apply(16'd1 << i, 16'hFFFF, 16'd0, 16'd0);
            apply(16'd0, 16'd1 << i, 16'hFFFF, 16'd1 << i);
            apply(16'hFFFF, 16'd0, 16'd1 << i, 16'hFFFF);
            apply(~(16'd1 << i), 16'd1 << i, 16'hFFFF, 16'd1);
        end
        for (i = 0; i < 4000; i = i + 1) begin
            case (i % 4)
                0: apply($random(seed), $random(seed), $random(seed), $random(seed));
                1: apply($random(seed) | 16'hFF00, $random(seed) | 16'hF0F0, $random(seed), $random(seed) | 16'h8001);
                2: apply(16'hFFFF ^ ($random(seed) & 16'h0101), $random(seed), 16'hFFFF, $random(seed));
                default: apply($random(seed), ~a, $random(seed), ~c);
            endcase
        end
        if (errors == 0) $display("===========Your Design Passed===========");
        else $display("===========Test completed with %0d failures===========", errors);
        $finish;
    end
endmodule
